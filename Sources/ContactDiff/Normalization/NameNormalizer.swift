import Foundation

/// Turns a person's name into words that compare equal when only their form differs: case,
/// accents, white space and punctuation, word order, particles and honorifics.
///
/// ```swift
/// NameNormalizer.key(of: "Ludwig van  Beethoven")   // "beethoven ludwig"
/// NameNormalizer.key(of: "BEETHOVEN, Ludwig")        // "beethoven ludwig"
/// NameNormalizer.key(of: "José Martínez")            // "jose martinez"
/// ```
///
/// Names in scripts written without spaces (Han, Hangul, Kana) count each character as a word.
/// What is removed: diacritics (`é` → `e`; `ß` → `ss`, `ø` → `o`, `æ` → `ae`, `ł` → `l`,
/// `đ` → `d`, which have no decomposition), the particles and honorifics in ``ignoredWords``
/// (unless nothing else is left), and every character that is not a letter or digit.
public enum NameNormalizer {
    /// Words left out of a name's key: family-name particles (`van`, `de`, `von`, …) and
    /// honorifics (`dr`, `mr`, `jr`, …), which people write or omit freely.
    public static let ignoredWords: Set<String> = [
        "van", "von", "der", "den", "de", "del", "della", "di", "da", "das", "dos", "du", "la", "le", "ter", "ten",
        "zu", "bin", "ibn", "al", "el", "mc",
        "dr", "mr", "mrs", "ms", "miss", "prof", "sir", "jr", "sr", "junior", "senior", "ii", "iii", "iv",
    ]

    /// The words of `name`, folded and without particles, in their written order.
    public static func words(of name: String) -> [String] {
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return asciiWords(of: name) }
        let folded = fold(name)
        var words: [String] = []
        var current = ""
        for scalar in folded.unicodeScalars {
            if isLetterOrDigit(scalar) {
                current.unicodeScalars.append(scalar)
            } else if scalar == "'" || scalar == "\u{2019}" {
                continue  // O'Brien, d’Alembert: one word
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        words = words.flatMap { word in isWrittenWithoutSpaces(word) ? word.map(String.init) : [word] }
        let kept = words.filter { !ignoredWords.contains($0) }
        return kept.isEmpty ? words : kept
    }

    /// ``words(of:)`` for ASCII names, byte by byte: the same words without the Unicode tables.
    private static func asciiWords(of name: String) -> [String] {
        var words: [String] = []
        var current: [UInt8] = []
        current.reserveCapacity(16)
        for byte in name.utf8 {
            switch byte {
            case 0x41...0x5A: current.append(byte + 0x20)
            case 0x61...0x7A, 0x30...0x39: current.append(byte)
            case 0x27: continue  // O'Brien: one word
            default:
                if !current.isEmpty {
                    words.append(String(decoding: current, as: UTF8.self))
                    current.removeAll(keepingCapacity: true)
                }
            }
        }
        if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)) }
        let kept = words.filter { !ignoredWords.contains($0) }
        return kept.isEmpty ? words : kept
    }

    /// Letters, marks and digits of any script (ASCII answered without a table look-up).
    static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x61...0x7A, 0x30...0x39, 0x41...0x5A: return true
        case 0..<0x80: return false
        default:
            let properties = scalar.properties
            return properties.isAlphabetic || properties.numericType != nil || properties.generalCategory == .nonspacingMark
                || properties.generalCategory == .spacingMark
        }
    }

    /// Whether a word is in a script written without spaces between name parts (Han, Hangul,
    /// Kana): its characters are then the words, so that `鈴木美咲` and `美咲鈴木` compare alike.
    static func isWrittenWithoutSpaces(_ word: String) -> Bool {
        word.unicodeScalars.count > 1 && word.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0x20000...0x2FA1F: true
            default: false
            }
        }
    }

    /// The generation a name states (`Jr.`, `Senior`, `III`, `2nd`), normalised (`jr`, `sr`, `ii`,
    /// `iii`, `iv`), or `nil`. ``words(of:)`` leaves these words out, since people write or omit
    /// them freely; but a father and his son of the same name often share a home number, and two
    /// names that state different generations are different people.
    public static func generation(of name: String) -> String? {
        var found: String?
        var word: [UInt8] = []
        func finish() {
            defer { word.removeAll(keepingCapacity: true) }
            switch word.count {
            case 2, 3, 4, 6: break
            default: return
            }
            switch String(decoding: word, as: UTF8.self) {
            case "jr", "junior": found = "jr"
            case "sr", "senior": found = "sr"
            case "ii", "2nd": found = "ii"
            case "iii", "3rd": found = "iii"
            case "iv", "4th": found = "iv"
            default: break
            }
        }
        for byte in name.utf8 {
            switch byte {
            case 0x41...0x5A: word.append(byte + 0x20)
            case 0x61...0x7A, 0x30...0x39: word.append(byte)
            case 0x80...: word.append(0xFF)  // a letter of another script: not a marker word
            default: finish()
            }
        }
        finish()
        return found
    }

    /// The words of `name` sorted and joined by single spaces: equal for names that differ only
    /// in form or word order.
    public static func key(of name: String) -> String {
        words(of: name).sorted().joined(separator: " ")
    }

    /// `name` lower-cased and without diacritics.
    public static func fold(_ name: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(name.unicodeScalars.count)
        let isASCII = name.utf8.allSatisfy { $0 < 0x80 }
        let source = isASCII ? name : name.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
        for scalar in source.unicodeScalars {
            switch scalar {
            case "A"..."Z": result.unicodeScalars.append(Unicode.Scalar(scalar.value + 32)!)
            case "ß": result += "ss"
            case "ø", "Ø": result += "o"
            case "æ", "Æ": result += "ae"
            case "œ", "Œ": result += "oe"
            case "ł", "Ł": result += "l"
            case "đ", "Đ": result += "d"
            case "ı": result += "i"
            default:
                if scalar.value < 0x80 {
                    result.unicodeScalars.append(scalar)
                } else {
                    result += String(scalar).lowercased()
                }
            }
        }
        return result
    }

    /// How alike two names are, in `0...1`, whatever their word order: each word of the name
    /// with fewer words is paired with its most similar word of the other (``JaroWinkler``), and
    /// the similarities are summed and divided by the larger word count, so that a missing word
    /// costs as much as a wrong one. Names written without spaces ("Maryann" and "Mary Ann") are
    /// also compared whole; the higher figure counts.
    public static func similarity(_ a: [String], _ b: [String]) -> Double {
        if a.isEmpty || b.isEmpty { return 0 }
        if a.sorted() == b.sorted() { return 1 }
        let (short, long) = a.count <= b.count ? (a, b) : (b, a)
        var available = long.map { Array($0.unicodeScalars) }
        var total = 0.0
        for word in short {
            let scalars = Array(word.unicodeScalars)
            var best = -1.0
            var bestIndex = 0
            for (index, other) in available.enumerated() {
                let score = JaroWinkler.similarity(scalars, other)
                if score > best { best = score; bestIndex = index }
            }
            total += max(best, 0)
            available.remove(at: bestIndex)
        }
        let wordwise = total / Double(long.count)
        let whole = JaroWinkler.similarity(a.joined(), b.joined())
        let wholeSorted = JaroWinkler.similarity(a.sorted().joined(), b.sorted().joined())
        return max(wordwise, whole, wholeSorted)
    }
}
