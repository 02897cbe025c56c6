import VCardKit

/// A contact's photo as the pages serve it: the bytes of an inline photo (`data:` URI or a
/// 3.0 `ENCODING=b` value) in an image format every browser shows. The list links to it
/// (`/photo?uid=…`) instead of carrying it inline, so that neither the list page, nor the
/// catalog in memory, nor `.cardsync/web-list.bin` holds thousands of photos.
struct ContactPhoto: Sendable {
    /// The raster formats served. Others (SVG among them: a document that can hold scripts,
    /// TIFF, HEIC) are not served as images of this site.
    static let servedTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp"]
    /// The largest photo the list shows; a larger one is shown on the contact's page only.
    static let listLimit = 48 * 1024

    /// The media type, lower-cased (`image/jpeg` when the card names none).
    var type: String
    var bytes: [UInt8]

    /// The card's photo, or `nil` when it has none, it is a link, it cannot be decoded, or it
    /// is not in a served format.
    init?(of card: VCard) {
        guard let photo = card.photo, let bytes = photo.binaryData, !bytes.isEmpty else { return nil }
        let type = (photo.mediaType ?? "image/jpeg").split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased()
        guard Self.servedTypes.contains(type) else { return nil }
        self.type = type
        self.bytes = bytes
    }
}
