import Foundation
import JSONText

/// A Mango selector (`{"type": "contact", "n": {"$gte": 2}}`) as `_changes?filter=_selector`
/// takes it, checked against documents as `GET /{db}/{docid}` shows them.
///
/// Supported: implicit equality, nested fields (`{"a": {"b": 1}}` and `"a.b"`), `$eq`, `$ne`,
/// `$gt`, `$gte`, `$lt`, `$lte`, `$exists`, `$in`, `$nin`, `$regex`, `$and`, `$or`, `$nor`,
/// `$not`. Other operators CouchDB knows are refused with 400 `bad_request`; unknown ones with
/// CouchDB's 400 `invalid_operator`. Values compare in CouchDB's collation order (null, false,
/// true, numbers, strings, arrays, objects); strings compare by Unicode scalars, not ICU.
///
/// ```swift
/// let selector = try MangoSelector(parsing: ["n": .object(["$gte": .integer(2)])])
/// selector.matches(["n": .integer(3)])   // true
/// ```
struct MangoSelector: Sendable {
    indirect enum Condition: Sendable {
        case all([Condition])
        case any([Condition])
        case none([Condition])
        case not(Condition)
        /// A test of the value at `path` (`nil` when the document has no such field).
        case field(path: [String], test: FieldTest)
    }

    indirect enum FieldTest: Sendable {
        case equal(JSONValue)
        case notEqual(JSONValue)
        case greater(JSONValue, orEqual: Bool)
        case less(JSONValue, orEqual: Bool)
        case exists(Bool)
        case oneOf([JSONValue])
        case noneOf([JSONValue])
        case regex(String)
        /// Several tests on one field (`{"n": {"$gt": 1, "$lt": 5}}`).
        case all([FieldTest])
        case not(FieldTest)
    }

    let condition: Condition

    /// Operators CouchDB has that this selector does not evaluate.
    static let unsupportedOperators: Set<String> = [
        "$all", "$elemMatch", "$allMatch", "$keyMapMatch", "$size", "$type", "$mod", "$beginsWith", "$text",
    ]

    /// Reads a selector.
    ///
    /// - Throws: ``CouchError`` 400 when it is not an object or uses an operator it cannot evaluate.
    init(parsing value: JSONValue) throws(CouchError) {
        guard let object = value.objectValue else {
            throw CouchError(.badRequest, reason: "Selector error: expected a JSON object")
        }
        condition = try Self.parse(object, path: [])
    }

    /// Whether `document` matches.
    func matches(_ document: JSONObject) -> Bool {
        Self.evaluate(condition, .object(document))
    }

    // MARK: Parsing

    private static func parse(_ object: JSONObject, path: [String]) throws(CouchError) -> Condition {
        var conditions: [Condition] = []
        for member in object.members {
            conditions.append(try parseMember(member.key, member.value, path: path))
        }
        return conditions.count == 1 ? conditions[0] : .all(conditions)
    }

    private static func parseMember(_ key: String, _ value: JSONValue, path: [String]) throws(CouchError) -> Condition {
        if key.hasPrefix("$") {
            switch key {
            case "$and", "$or", "$nor":
                guard let list = value.arrayValue else {
                    throw CouchError(.badRequest, reason: "Bad argument for operator \(key): \(value.text)")
                }
                var conditions: [Condition] = []
                for item in list {
                    guard let object = item.objectValue else {
                        throw CouchError(.badRequest, reason: "Bad argument for operator \(key): \(value.text)")
                    }
                    conditions.append(try parse(object, path: path))
                }
                switch key {
                case "$and": return .all(conditions)
                case "$or": return .any(conditions)
                default: return .none(conditions)
                }
            case "$not":
                guard let object = value.objectValue else {
                    throw CouchError(.badRequest, reason: "Bad argument for operator $not: \(value.text)")
                }
                return .not(try parse(object, path: path))
            default:
                guard !path.isEmpty else { throw unknownOrUnsupported(key) }
                return .field(path: path, test: try fieldTest(key, value))
            }
        }
        let fieldPath = path + key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let object = value.objectValue else {
            return .field(path: fieldPath, test: .equal(value))
        }
        if object.members.isEmpty {
            return .field(path: fieldPath, test: .equal(value))
        }
        // Operators apply to this field; other keys name fields inside it.
        return try parse(object, path: fieldPath)
    }

    private static func fieldTest(_ name: String, _ argument: JSONValue) throws(CouchError) -> FieldTest {
        switch name {
        case "$eq": return .equal(argument)
        case "$ne": return .notEqual(argument)
        case "$gt": return .greater(argument, orEqual: false)
        case "$gte": return .greater(argument, orEqual: true)
        case "$lt": return .less(argument, orEqual: false)
        case "$lte": return .less(argument, orEqual: true)
        case "$exists":
            guard let flag = argument.boolValue else {
                throw CouchError(.badRequest, reason: "Bad argument for operator $exists: \(argument.text)")
            }
            return .exists(flag)
        case "$in", "$nin":
            guard let list = argument.arrayValue else {
                throw CouchError(.badRequest, reason: "Bad argument for operator \(name): \(argument.text)")
            }
            return name == "$in" ? .oneOf(list) : .noneOf(list)
        case "$regex":
            guard let pattern = argument.stringValue, (try? NSRegularExpression(pattern: pattern)) != nil else {
                throw CouchError(.badRequest, reason: "Bad argument for operator $regex: \(argument.text)")
            }
            return .regex(pattern)
        case "$not":
            guard let object = argument.objectValue, object.members.allSatisfy({ $0.key.hasPrefix("$") }), !object.isEmpty else {
                throw CouchError(.badRequest, reason: "Bad argument for operator $not: \(argument.text)")
            }
            var tests: [FieldTest] = []
            for member in object.members { tests.append(try fieldTest(member.key, member.value)) }
            return .not(.all(tests))
        default:
            throw unknownOrUnsupported(name)
        }
    }

    private static func unknownOrUnsupported(_ name: String) -> CouchError {
        if unsupportedOperators.contains(name) {
            return CouchError(.badRequest, reason: "The \(name) operator is not supported by cardsync serve")
        }
        return CouchError(.invalidOperator, reason: "Invalid operator: \(name)")
    }

    // MARK: Evaluation

    private static func evaluate(_ condition: Condition, _ document: JSONValue) -> Bool {
        switch condition {
        case .all(let conditions): return conditions.allSatisfy { evaluate($0, document) }
        case .any(let conditions): return conditions.contains { evaluate($0, document) }
        case .none(let conditions): return !conditions.contains { evaluate($0, document) }
        case .not(let inner): return !evaluate(inner, document)
        case .field(let path, let test):
            var current: JSONValue? = document
            for name in path { current = current?.objectValue?[name] }
            return check(test, current)
        }
    }

    /// A missing field matches only `$exists: false` (and negations), as in CouchDB.
    private static func check(_ test: FieldTest, _ value: JSONValue?) -> Bool {
        switch test {
        case .exists(let flag): return (value != nil) == flag
        case .all(let tests): return tests.allSatisfy { check($0, value) }
        case .not(let inner): return !check(inner, value)
        default: break
        }
        guard let value else { return false }
        switch test {
        case .equal(let argument): return JSONCollation.compare(value, argument) == 0
        case .notEqual(let argument): return JSONCollation.compare(value, argument) != 0
        case .greater(let argument, let orEqual):
            let order = JSONCollation.compare(value, argument)
            return order > 0 || (orEqual && order == 0)
        case .less(let argument, let orEqual):
            let order = JSONCollation.compare(value, argument)
            return order < 0 || (orEqual && order == 0)
        case .oneOf(let list):
            if let items = value.arrayValue { return items.contains { item in list.contains { JSONCollation.compare(item, $0) == 0 } } }
            return list.contains { JSONCollation.compare(value, $0) == 0 }
        case .noneOf(let list):
            return !list.contains { JSONCollation.compare(value, $0) == 0 }
        case .regex(let pattern):
            guard let text = value.stringValue, let expression = try? NSRegularExpression(pattern: pattern) else { return false }
            return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        case .exists, .all, .not:
            return false
        }
    }
}

/// CouchDB's collation of JSON values: null < false < true < numbers < strings < arrays < objects.
enum JSONCollation {
    /// Negative, zero or positive as `lhs` sorts before, with, or after `rhs`.
    static func compare(_ lhs: JSONValue, _ rhs: JSONValue) -> Int {
        let lhsRank = rank(lhs)
        let rhsRank = rank(rhs)
        if lhsRank != rhsRank { return lhsRank < rhsRank ? -1 : 1 }
        switch (lhs, rhs) {
        case (.number, .number):
            let left = lhs.doubleValue ?? 0
            let right = rhs.doubleValue ?? 0
            return left < right ? -1 : (left > right ? 1 : 0)
        case (.string(let left), .string(let right)):
            if left.unicodeScalars.elementsEqual(right.unicodeScalars) { return 0 }
            return left.unicodeScalars.lexicographicallyPrecedes(right.unicodeScalars) ? -1 : 1
        case (.array(let left), .array(let right)):
            for (leftItem, rightItem) in zip(left, right) {
                let order = compare(leftItem, rightItem)
                if order != 0 { return order }
            }
            return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
        case (.object(let left), .object(let right)):
            for (leftMember, rightMember) in zip(left.members, right.members) {
                let keyOrder = compare(.string(leftMember.key), .string(rightMember.key))
                if keyOrder != 0 { return keyOrder }
                let order = compare(leftMember.value, rightMember.value)
                if order != 0 { return order }
            }
            return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
        default:
            return 0
        }
    }

    private static func rank(_ value: JSONValue) -> Int {
        switch value {
        case .null: 0
        case .bool(let flag): flag ? 2 : 1
        case .number: 3
        case .string: 4
        case .array: 5
        case .object: 6
        }
    }
}

extension JSONValue {
    /// The value as compact JSON text, for error messages.
    var text: String { String(decoding: serialized(), as: UTF8.self) }
}
