import Foundation
import VCardKit

/// `.cardsync/web-list.bin`: the list fields of every contact the last `cardsync web` run knew,
/// each under the content hash of the version it was read from, so that starting the server on
/// a large book reads one file instead of parsing every card.
///
/// It is derived data and never trusted over the book: an entry is used only when its hash is
/// the hash the book's index holds for the contact now (a contact changed by another program
/// while the server was down has a new hash, so its file is read again); a file that is
/// missing, of another format, cut short or whose checksum does not match is ignored as a
/// whole, and the list is built from the cards. Written atomically (a temporary file renamed).
///
/// Layout: the magic `CSWEBL02`, the entry count (UInt64), then per entry the 32 hash bytes and
/// the fields of ``ContactListEntry`` (each a UInt32 length and its UTF-8 bytes; a length of
/// `UInt32.max` for an absent optional), then a checksum (UInt64, FNV-1a over 64-bit words) of
/// everything before it. Integers are little-endian.
enum ContactListCache {
    /// The name of the file in the book's `.cardsync/` folder.
    static let fileName = "web-list.bin"

    /// Names the layout *and* the way ``ContactListEntry`` derives its fields from a card:
    /// change it when either changes, so that an older file is rebuilt rather than believed.
    private static let magic = Array("CSWEBL02".utf8)

    /// One contact's list entry and the content hash of the version it was read from.
    struct Item: Sendable {
        var hash: ContentHash
        var entry: ContactListEntry
    }

    /// The cache's path in the book at `directory`.
    static func path(inBook directory: String) -> String {
        directory + "/.cardsync/" + fileName
    }

    /// The entries of the cache in the book at `directory` by UID; `nil` when there is none or
    /// it is damaged.
    static func read(bookDirectory directory: String) -> [String: Item]? {
        guard let data = FileManager.default.contents(atPath: path(inBook: directory)) else { return nil }
        return decode(Array(data))
    }

    /// Replaces the cache in the book at `directory` (atomically: readers see the old file or
    /// the new one, never a part).
    static func write(_ items: some Sequence<Item>, bookDirectory directory: String) throws {
        try Data(encode(items)).write(to: URL(fileURLWithPath: path(inBook: directory)), options: .atomic)
    }

    static func encode(_ items: some Sequence<Item>) -> [UInt8] {
        var out = magic
        var count: UInt64 = 0
        out.append(contentsOf: repeatElement(0, count: 8))
        for item in items {
            count += 1
            for word in [item.hash.words.0, item.hash.words.1, item.hash.words.2, item.hash.words.3] { append(word, to: &out) }
            let entry = item.entry
            for text in [entry.uid, entry.displayName, entry.familyName] { append(Array(text.utf8), to: &out) }
            for text in [entry.email, entry.phone, entry.photoDataURI] { append(text.map { Array($0.utf8) }, to: &out) }
            for bytes in [Array(entry.nameKey.utf8), Array(entry.familyKey.utf8), entry.searchText, entry.phoneDigits] { append(bytes, to: &out) }
        }
        withUnsafeBytes(of: count.littleEndian) { out.replaceSubrange(magic.count..<magic.count + 8, with: $0) }
        append(checksum(out[...]), to: &out)
        return out
    }

    /// The items of `bytes` by UID; `nil` for anything that is not a whole, intact cache.
    static func decode(_ bytes: [UInt8]) -> [String: Item]? {
        guard bytes.count >= magic.count + 16, bytes.starts(with: magic) else { return nil }
        var reader = Reader(bytes: bytes[..<(bytes.count - 8)])
        var trailer = Reader(bytes: bytes[(bytes.count - 8)...])
        guard trailer.word() == checksum(bytes[..<(bytes.count - 8)]) else { return nil }
        reader.position = magic.count
        guard let count = reader.word(), count <= UInt64(bytes.count) else { return nil }
        var items: [String: Item] = [:]
        items.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let w0 = reader.word(), let w1 = reader.word(), let w2 = reader.word(), let w3 = reader.word(),
                  let uid = reader.text(), let displayName = reader.text(), let familyName = reader.text(),
                  let email = reader.optionalText(), let phone = reader.optionalText(), let photo = reader.optionalText(),
                  let nameKey = reader.text(), let familyKey = reader.text(),
                  let searchText = reader.bytes(), let phoneDigits = reader.bytes() else { return nil }
            let entry = ContactListEntry(uid: uid, displayName: displayName, familyName: familyName, email: email, phone: phone,
                                         photoDataURI: photo, nameKey: nameKey, familyKey: familyKey,
                                         searchText: searchText, phoneDigits: phoneDigits)
            items[uid] = Item(hash: ContentHash(words: (w0, w1, w2, w3)), entry: entry)
        }
        guard reader.position == reader.data.endIndex else { return nil }
        return items
    }

    private static func append(_ word: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: word.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func append(_ field: [UInt8]?, to out: inout [UInt8]) {
        guard let field else {
            withUnsafeBytes(of: UInt32.max.littleEndian) { out.append(contentsOf: $0) }
            return
        }
        withUnsafeBytes(of: UInt32(field.count).littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: field)
    }

    /// FNV-1a over 64-bit words (then the last bytes one by one): catches a file cut short or
    /// changed by hand, not an attack (the cache is in the user's own folder and is never
    /// believed over the book's hashes). Word-wise so that a 150 MB cache is checked in tens of
    /// milliseconds.
    private static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBytes { buffer in
            let prime: UInt64 = 0x0000_0100_0000_01b3
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            let words = buffer.count / 8
            for index in 0..<words {
                hash = (hash ^ UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))) &* prime
            }
            for byte in buffer[(words * 8)...] {
                hash = (hash ^ UInt64(byte)) &* prime
            }
            return hash
        }
    }

    /// Reads little-endian words and length-prefixed fields, `nil` past the end.
    private struct Reader {
        let data: ArraySlice<UInt8>
        var position: Int

        init(bytes: ArraySlice<UInt8>) {
            data = bytes
            position = bytes.startIndex
        }

        mutating func word() -> UInt64? {
            guard data.endIndex - position >= 8 else { return nil }
            var value: UInt64 = 0
            for index in (0..<8).reversed() { value = value << 8 | UInt64(data[position + index]) }
            position += 8
            return value
        }

        /// The length of the next field, `.some(nil)` for an absent one, `nil` past the end.
        private mutating func length() -> Int?? {
            guard data.endIndex - position >= 4 else { return nil }
            var value: UInt32 = 0
            for index in (0..<4).reversed() { value = value << 8 | UInt32(data[position + index]) }
            position += 4
            if value == UInt32.max { return .some(nil) }
            guard Int(value) <= data.endIndex - position else { return nil }
            return .some(Int(value))
        }

        mutating func bytes() -> [UInt8]? {
            guard case .some(.some(let count)) = length() else { return nil }
            defer { position += count }
            return Array(data[position..<position + count])
        }

        mutating func text() -> String? {
            bytes().map { String(decoding: $0, as: UTF8.self) }
        }

        mutating func optionalText() -> String?? {
            guard let count = length() else { return nil }
            guard let count else { return .some(nil) }
            defer { position += count }
            return .some(String(decoding: data[position..<position + count], as: UTF8.self))
        }
    }
}
