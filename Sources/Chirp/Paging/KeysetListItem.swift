/// An item of a keyset list, which knows where it sits in the list's order.
protocol KeysetListItem: JSONWritable {
    var position: KeysetPosition { get }
}
