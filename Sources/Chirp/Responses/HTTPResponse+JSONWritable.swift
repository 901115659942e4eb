import HTTP

extension HTTPResponse {
    /// `value`, written as the JSON body.
    static func json(_ status: Int, _ value: some JSONWritable) -> HTTPResponse {
        .json(status, value.jsonBytes)
    }
}
