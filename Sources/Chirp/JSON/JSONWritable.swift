/// A value that writes itself as JSON.
protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}

extension JSONWritable {
    var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }
}
