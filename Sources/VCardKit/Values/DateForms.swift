/// Converts date and time values between the basic form vCard 4.0 writes (`19850412`,
/// `T102200Z`) and the extended form of jCard, xCard and vCard 3.0 (`1985-04-12`, `10:22:00Z`).
/// Values that fit neither pattern are returned unchanged.
enum DateForms {
    /// `19850412` → `1985-04-12`, `--0412` → `--04-12`, `T1022` → `10:22` (jCard's time), …
    static func extended(_ value: String, dropTimeDesignator: Bool = true) -> String {
        let (date, time) = split(value)
        // Text that only holds a `T` is not a date and time: kept as written, so that converting
        // it twice gives what converting once gave (found by fuzzing the jCard reader).
        if let time, !isTimeLike(time) { return value }
        var result = extendedDate(date)
        if let time {
            let extendedTime = self.extendedTime(time)
            // The `T` of a time alone is dropped only when what follows reads as a clock: without
            // it `T23010002` would be read back as the date `2301-00-02` (found by fuzzing).
            result += (date.isEmpty && dropTimeDesignator && isClockShaped(time)) ? extendedTime : "T" + extendedTime
        }
        return result
    }

    /// `1985-04-12` → `19850412`, `10:22:00` (as a time) → `T102200` when `isTime`, …
    static func basic(_ value: String, isTime: Bool = false) -> String {
        if isTime && !value.contains("T") { return isTimeLike(value) ? "T" + basicTime(value) : value }
        let (date, time) = split(value)
        if let time, !isTimeLike(time) { return value }
        var result = basicDate(date)
        if let time { result += "T" + basicTime(time) }
        return result
    }

    private static func split(_ value: String) -> (String, String?) {
        if let t = value.firstIndex(where: { $0 == "T" || $0 == "t" }) {
            return (String(value[..<t]), String(value[value.index(after: t)...]))
        }
        return (value, nil)
    }

    private static func isDigits(_ text: Substring) -> Bool { !text.isEmpty && text.allSatisfy(\.isASCIIDigitCharacter) }

    private static func extendedDate(_ date: String) -> String {
        let s = Substring(date)
        if s.count == 8 && isDigits(s) { return "\(s.prefix(4))-\(s.dropFirst(4).prefix(2))-\(s.suffix(2))" }
        if s.hasPrefix("--") && !s.hasPrefix("---") && s.count == 6 && isDigits(s.dropFirst(2)) {
            return "--\(s.dropFirst(2).prefix(2))-\(s.suffix(2))"
        }
        return date
    }

    private static func basicDate(_ date: String) -> String {
        let s = Substring(date)
        if s.count == 10, s.dropFirst(4).first == "-", s.dropFirst(7).first == "-" {
            let digits = s.filter { $0 != "-" }
            if digits.count == 8 && isDigits(Substring(digits)) { return digits }
        }
        // `--MM-DD` only when MM and DD are digits (`--,--02` is not a date; found by fuzzing).
        if s.hasPrefix("--") && !s.hasPrefix("---") && s.count == 7 && s.dropFirst(4).first == "-",
           isDigits(s.dropFirst(2).prefix(2)), isDigits(s.suffix(2)) {
            return "--" + s.dropFirst(2).filter { $0 != "-" }
        }
        return date
    }

    private static func zoneSplit(_ time: String) -> (String, String) {
        if time.hasSuffix("Z") || time.hasSuffix("z") { return (String(time.dropLast()), "Z") }
        if let sign = time.lastIndex(where: { $0 == "+" || $0 == "-" }), sign != time.startIndex,
           time[time.startIndex..<sign].contains(where: \.isASCIIDigitCharacter) {
            return (String(time[..<sign]), String(time[sign...]))
        }
        return (time, "")
    }

    private static func extendedTime(_ time: String) -> String {
        let (clock, zone) = zoneSplit(time)
        var out = clock
        let c = Substring(clock)
        if c.count == 6 && isDigits(c) { out = "\(c.prefix(2)):\(c.dropFirst(2).prefix(2)):\(c.suffix(2))" }
        else if c.count == 4 && isDigits(c) { out = "\(c.prefix(2)):\(c.suffix(2))" }
        else if c.count == 5 && c.hasPrefix("-") && isDigits(c.dropFirst()) { out = "-\(c.dropFirst().prefix(2)):\(c.suffix(2))" }
        var z = zone
        if z.count == 5, isDigits(Substring(z).dropFirst()) { z = "\(z.prefix(3)):\(z.suffix(2))" }
        return out + z
    }

    /// Whether `time` (after the `T`) has the characters of a time in either form: digits,
    /// `:`, `-` and `.`, then nothing, `Z`, or a `±hh[:]mm` offset.
    private static func isTimeLike(_ time: String) -> Bool {
        let (clock, zone) = zoneSplit(time)
        let c = clock.replacingColons
        let z = zone.replacingColons
        let isClock = !c.isEmpty && c.allSatisfy { $0.isASCIIDigitCharacter || $0 == "-" || $0 == "." }
        let isZone = z.isEmpty || z == "Z" || (z.count == 5 && (z.first == "+" || z.first == "-") && isDigits(Substring(z).dropFirst()))
        return isClock && isZone
    }

    /// Whether `time` is hours, minutes and seconds (2, 4 or 6 digits, or with leading `-` for
    /// omitted parts; colons and a fraction allowed): a value no date can be taken for.
    private static func isClockShaped(_ time: String) -> Bool {
        let (clock, _) = zoneSplit(time)
        let whole = Substring(clock.replacingColons).prefix { $0 != "." && $0 != "," }
        let digits = whole.drop { $0 == "-" }
        return isDigits(digits) && (whole.count == 2 || whole.count == 4 || whole.count == 6)
    }

    private static func basicTime(_ time: String) -> String {
        let (clock, zone) = zoneSplit(time)
        return clock.replacingColons + zone.replacingColons
    }

    /// `-05:00` → `-0500` (utc-offset values).
    static func basicOffset(_ value: String) -> String { value.replacingColons }

    /// `-05:00` → `-0500`, and nothing else: the inverse of ``extendedOffset(_:)``, so that a
    /// utc-offset value that is not an offset keeps its colons through every conversion.
    static func basicOffsetIfOffset(_ value: String) -> String {
        let s = Substring(value)
        guard s.count == 6, s.first == "+" || s.first == "-", s.dropFirst(3).first == ":",
              isDigits(s.dropFirst().prefix(2)), isDigits(s.suffix(2)) else { return value }
        return "\(s.prefix(3))\(s.suffix(2))"
    }

    /// `-0500` → `-05:00`.
    static func extendedOffset(_ value: String) -> String {
        let s = Substring(value)
        if s.count == 5, s.first == "+" || s.first == "-", isDigits(s.dropFirst()) { return "\(s.prefix(3)):\(s.suffix(2))" }
        return value
    }
}

extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}

extension String {
    var replacingColons: String { contains(":") ? String(filter { $0 != ":" }) : self }
}
