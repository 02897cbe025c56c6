import Foundation

/// A `multipart/form-data` body (RFC 7578): the parts of an upload form.
struct MultipartForm: Sendable {
    struct Part: Sendable {
        var name: String
        var fileName: String?
        var contentType: String?
        var bytes: [UInt8]
    }

    var parts: [Part]

    /// Splits `body` at the boundary named in `contentType`; a body that does not parse has no parts.
    init(_ body: [UInt8], contentType: String) {
        parts = []
        guard let boundaryRange = contentType.range(of: "boundary=") else { return }
        var boundary = String(contentType[boundaryRange.upperBound...])
        if let semicolon = boundary.firstIndex(of: ";") { boundary = String(boundary[..<semicolon]) }
        boundary = boundary.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        let delimiter = Array(("--" + boundary).utf8)
        var positions: [Int] = []
        var index = 0
        while let found = Self.find(delimiter, in: body, from: index) {
            positions.append(found)
            index = found + delimiter.count
        }
        for (start, end) in zip(positions, positions.dropFirst()) {
            var partStart = start + delimiter.count
            if partStart + 1 < body.count && body[partStart] == 0x0D && body[partStart + 1] == 0x0A { partStart += 2 }
            var partEnd = end
            if partEnd >= 2 && body[partEnd - 2] == 0x0D && body[partEnd - 1] == 0x0A { partEnd -= 2 }
            guard partStart <= partEnd, let headerEnd = Self.find(Array("\r\n\r\n".utf8), in: body, from: partStart), headerEnd <= partEnd else { continue }
            let headers = String(decoding: body[partStart..<headerEnd], as: UTF8.self)
            var part = Part(name: "", fileName: nil, contentType: nil, bytes: Array(body[(headerEnd + 4)..<partEnd]))
            for line in headers.split(separator: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:") {
                    part.name = Self.parameter("name", in: String(line)) ?? ""
                    part.fileName = Self.parameter("filename", in: String(line))
                } else if lower.hasPrefix("content-type:") {
                    part.contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
                }
            }
            parts.append(part)
        }
    }

    /// The parts without a file name, as form fields.
    static func textFields(_ body: [UInt8], contentType: String) -> FormFields {
        var fields = FormFields()
        for part in MultipartForm(body, contentType: contentType).parts where part.fileName == nil {
            fields.append(part.name, String(decoding: part.bytes, as: UTF8.self))
        }
        return fields
    }

    private static func parameter(_ name: String, in header: String) -> String? {
        for piece in header.split(separator: ";") {
            let trimmed = piece.trimmingCharacters(in: .whitespaces)
            guard trimmed.lowercased().hasPrefix(name + "=") else { continue }
            return String(trimmed.dropFirst(name.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
