import Foundation

/// Text folded for searching: lower case, accents removed (`Zoë` and `ZOE` match), as UTF-8.
enum SearchText {
    /// `text` without case or accents.
    static func fold(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .spacingMark: continue
            default: result.append(scalar)
            }
        }
        return String(result).lowercased()
    }

    /// The digits of `text` (a phone number as typed: `+44 (20) 7946-0000` → `442079460000`).
    static func digits(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.properties.numericType == .decimal && $0.isASCII }.map(Character.init))
    }

    /// Whether `haystack` contains `needle` (both UTF-8 bytes; an empty needle is in everything).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        let first = needle[0]
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { wanted in
                var index = 0
                let last = hay.count - wanted.count
                while index <= last {
                    if hay[index] == first {
                        var matched = 1
                        while matched < wanted.count && hay[index + matched] == wanted[matched] { matched += 1 }
                        if matched == wanted.count { return true }
                    }
                    index += 1
                }
                return false
            }
        }
    }
}
