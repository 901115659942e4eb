import Foundation
import HTTP
import Postgres

/// `GET /v1/users/:username`: the profile and the first page of the user's posts, read
/// concurrently on two connections, so the answer takes as long as the slower read.
struct ProfileRoutes: Sendable {
    let services: Services

    func register(on router: Router) {
        router.add(.GET, "/v1/users/:username", show)
    }

    func show(_ request: HTTPRequest) async throws -> HTTPResponse {
        let viewer = try services.authenticator.viewer(of: request)
        let username = try request.usernameParameter()
        let source = TimelineSource.author(username: username)
        let page = try TimelineRequest(firstPageOf: request)
        // The slower read, the page of posts, is sent first: sending wakes a database backend,
        // which may take the loop's core for a moment, and the quick profile read sent second
        // still finishes before the page does.
        let (postResults, profileResults) = try await database {
            try await services.pool.executeConcurrently(
                as: services.identity(for: viewer),
                [source.query(below: .top, above: .bottom, limit: page.limit + 1)],
                ["select \(unescaped: Profile.columns) from users u where u.username = \(username)"])
        }
        guard let row = profileResults[0].first else { throw HTTPError.notFound(detail: "no such user") }
        let profile = try Profile(row: row)
        let posts = try postResults[0].rows.map(Post.init(row:))
        let response = respond(200, ProfilePage(profile: profile, posts: page.page(posts, source: source, cursors: services.cursors)))
        return services.etags.respond(to: request, with: response)
    }
}

/// `{profile, posts}`.
struct ProfilePage: JSONWritable {
    var profile: Profile
    var posts: CursorPage<Post>

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("profile"); profile.write(to: &json)
        json.key("posts"); posts.write(to: &json)
        json.endObject()
    }
}
