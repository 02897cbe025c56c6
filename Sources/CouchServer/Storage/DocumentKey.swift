/// A document id as a dictionary key that compares like CouchDB: by its UTF-8 bytes.
///
/// Swift's `String` equality is canonical equivalence, so `"café"` written with `é` and with
/// `e` and a combining accent are one key to a `[String: …]`. CouchDB keeps them as two
/// documents, and so must `cardsync serve`: otherwise the second is refused as a conflict with
/// the first, and a replication that carries both is incomplete.
struct DocumentKey: Hashable, Sendable {
    /// The id.
    let id: String

    init(_ id: String) { self.id = id }

    static func == (lhs: DocumentKey, rhs: DocumentKey) -> Bool {
        lhs.id.utf8.elementsEqual(rhs.id.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var id = id
        id.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
