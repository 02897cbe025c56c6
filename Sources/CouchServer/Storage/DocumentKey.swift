/// A document id as a dictionary key that compares like CouchDB: by its UTF-8 bytes.
///
/// Swift's `String` equality is canonical equivalence, so `"café"` written with `é` and with
/// `e` and a combining accent are one key to a `[String: …]`. CouchDB keeps them as two
/// documents, and so must `cardsync serve`: otherwise the second is refused as a conflict with
/// the first, and a replication that carries both is incomplete.
struct DocumentKey: Hashable, Sendable {
    /// The id.
    let id: String
    /// The hash of the id's UTF-8 bytes, computed once: a dictionary probing past other keys
    /// compares these before any bytes (hashing and comparing the strings on every probe,
    /// each access retaining them, was most of rebuilding a 100k-document index at open).
    private let bytesHash: Int

    init(_ id: String) {
        self.id = id
        var hasher = Hasher()
        var bytes = id
        bytes.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        bytesHash = hasher.finalize()
    }

    static func == (lhs: DocumentKey, rhs: DocumentKey) -> Bool {
        guard lhs.bytesHash == rhs.bytesHash else { return false }
        var left = lhs.id
        var right = rhs.id
        return left.withUTF8 { a in
            right.withUTF8 { b in a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0) }
        }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytesHash)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
