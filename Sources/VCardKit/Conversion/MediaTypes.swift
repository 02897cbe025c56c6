/// Maps vCard 3.0 `TYPE` values of binary properties (`JPEG`, `GIF`, `X509`) to media types
/// (`image/jpeg`) and back.
enum MediaTypes {
    static func mediaType(forTypeValue value: String, property: String) -> String {
        if value.contains("/") { return value.asciiLowercased }
        let lower = value.asciiLowercased
        switch property.asciiUppercased {
        case "SOUND":
            switch lower {
            case "wave", "wav": return "audio/wav"
            case "mp3", "mpeg": return "audio/mpeg"
            default: return "audio/\(lower)"
            }
        case "KEY":
            switch lower {
            case "x509": return "application/x509"
            case "pgp": return "application/pgp-keys"
            default: return "application/\(lower)"
            }
        default:
            return "image/\(lower)"
        }
    }

    static func typeValue(forMediaType mediaType: String) -> String {
        let lower = mediaType.asciiLowercased
        switch lower {
        case "audio/wav": return "WAVE"
        case "audio/mpeg": return "MP3"
        case "application/x509": return "X509"
        case "application/pgp-keys": return "PGP"
        default:
            if let slash = lower.firstIndex(of: "/"), ["image", "audio", "application"].contains(String(lower[..<slash])) {
                return String(lower[lower.index(after: slash)...]).asciiUppercased
            }
            return mediaType
        }
    }
}
