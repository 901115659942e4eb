import Foundation
import Postgres

/// The seeded follow graph: heavy tails on both sides, about `follows` rows in all, no
/// self-follows and no duplicates by construction. Its few parameters are solved from the
/// sizes here, before any row is written, so the same sizes give the same graph.
///
/// - Popular authors: users 1…`popularAuthors` (at most three) are each followed by about a
///   third of all users, every other user following each of them with that chance. They take
///   about `popularAuthors · users / 3` of the follows, at most half of them.
/// - Followers: the rest of the follows go by rank in a hash order of users, the follower at
///   rank r following floor(`heaviest` · r^−`degreeExponent`) more accounts: a power law whose
///   head follows thousands (up to `SeedSizes.mostFollows`, never more than all other users),
///   with the exponent solved so that the total comes to `follows`. Which user is the heaviest
///   follower depends on the seed: find them by `following_count`.
/// - Followees: a follower with b such follows picks, among the m users that are neither
///   popular authors nor itself (in order of user number, the more popular first), the ones at
///   positions (k − 1) + floor((m − b) · ((k − 1 + u) / b)^`followeeSkew`) for k = 1…b, u a
///   uniform draw: strictly increasing in k, so no two picks meet, and leaning to the front as
///   much as the skew says. The skew is solved so that user `popularAuthors + 1`, the first
///   position, is followed by about half the popular authors' share, and the authors after it
///   by ever fewer, a power law in rank.
struct FollowGraph {
    /// The most popular authors' share of all users as followers.
    static let popularShare = 1.0 / 3
    /// How many authors have `popularShare`, where the follows allow.
    static let mostPopularAuthors = 3

    let users: Int
    let popularAuthors: Int
    /// Follows, besides popular authors, of the follower at rank 1.
    let heaviest: Int
    let degreeExponent: Double
    let followeeSkew: Double

    init(users: Int, follows: Int, mostFollows: Int) {
        self.users = users
        let others = users - 1
        popularAuthors = others > 0 && follows > 0
            ? min(Self.mostPopularAuthors, others, Int(1.5 * Double(follows) / Double(others))) : 0
        let popularFollows = Double(popularAuthors * others) * Self.popularShare
        let target = Double(follows) - popularFollows
        heaviest = max(0, min(mostFollows - popularAuthors, others - popularAuthors, Int(target)))
        let degrees = Degrees(users: users, heaviest: heaviest)
        let exponent = heaviest == 0 ? 1 : Self.boundary(in: 0...20) { degrees.total(exponent: $0) > target }
        let candidates = others - popularAuthors
        degreeExponent = exponent
        followeeSkew = heaviest == 0 ? 1 : Self.boundary(in: 1...16) {
            degrees.frontShare(exponent: exponent, skew: $0, candidates: candidates) < Self.popularShare / 2
        }
    }

    /// Where `holds` turns from true to false across `range` (it turns once at most), or the
    /// end of the range it holds at throughout.
    private static func boundary(in range: ClosedRange<Double>, _ holds: (Double) -> Bool) -> Double {
        var (low, high) = (range.lowerBound, range.upperBound)
        guard holds(low) else { return low }
        guard !holds(high) else { return high }
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if holds(middle) {
                low = middle
            } else {
                high = middle
            }
        }
        return high
    }

    /// The followers' power law, counted by degree rather than by follower, so that solving
    /// it costs `heaviest` steps whatever the number of users.
    private struct Degrees {
        let users: Int
        let heaviest: Int

        /// How many followers have at least `degree` follows: those whose rank r has
        /// heaviest · r^−exponent ≥ degree.
        func atLeast(_ degree: Int, exponent: Double) -> Int {
            guard degree <= heaviest else { return 0 }
            let ranks = pow(Double(heaviest) / Double(degree), 1 / exponent)
            return ranks >= Double(users) ? users : Int(ranks)
        }

        func total(exponent: Double) -> Double {
            (1...max(1, heaviest)).reduce(0) { $0 + Double(atLeast($1, exponent: exponent)) }
        }

        /// The expected share of users who follow the first of `candidates`: a follower with
        /// b picks takes it when its first pick lands there, which is when
        /// (candidates − b) · (u / b)^skew < 1.
        func frontShare(exponent: Double, skew: Double, candidates: Int) -> Double {
            let followers = (1...max(1, heaviest)).reduce(0.0) { sum, degree in
                let count = Double(atLeast(degree, exponent: exponent) - atLeast(degree + 1, exponent: exponent))
                let chance = degree >= candidates ? 1 : min(1, Double(degree) * pow(Double(candidates - degree), -1 / skew))
                return sum + count * chance
            }
            return followers / Double(users)
        }
    }

    /// The statement that writes the graph: the popular authors' followers, then everyone's
    /// other follows. A follow's pick and time are hashes of (seed, row number), a follower's
    /// rows numbered from (follower − 1) · users + 1.
    func insert(seed: Int) -> PostgresQuery {
        """
        insert into follows (follower_id, followee_id, created_at)
        select pg_temp.uid('user', \(seed), follower), pg_temp.uid('user', \(seed), followee),
               timestamptz '2026-06-01 00:00:00+00' + pg_temp.unit(row, \(seed) * 64 + 16) * interval '180 days'
        from (
            select follower, author as followee, (follower - 1) * \(users)::int8 + author as row
            from generate_series(1, \(users)::int8) as follower, generate_series(1, \(popularAuthors)::int8) as author
            where author <> follower
              and pg_temp.unit((follower - 1) * \(users)::int8 + author, \(seed) * 64 + 30) < \(Self.popularShare)::float8
          union all
            select follower, first + slot + (first + slot >= follower and follower >= first)::int, (follower - 1) * \(users)::int8 + first - 1 + k
            from (select follower, \(popularAuthors)::int8 + 1 as first,
                         row_number() over (order by hashint8extended(follower, \(seed) * 64 + 31), follower) as rank
                  from generate_series(1, \(users)::int8) as follower) as ranked,
                 lateral (select \(users)::int8 - first + 1 - (follower >= first)::int as candidates) as eligible,
                 lateral (select least(floor(\(heaviest)::int8 * rank::float8 ^ (-\(degreeExponent)::float8))::int8, candidates) as picks) as degree,
                 lateral (select k, k - 1 + floor((candidates - picks) * ((k - 1 + pg_temp.unit((follower - 1) * \(users)::int8 + first - 1 + k,
                                                                                                \(seed) * 64 + 32)) / picks) ^ \(followeeSkew)::float8)::int8 as slot
                          from generate_series(1, picks) as k) as pick
        ) as pairs
        on conflict do nothing
        """
    }
}
