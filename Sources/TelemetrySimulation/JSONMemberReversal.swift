/// Rewrites valid JSON with every object's members in reverse order and `", "` / `": "` as
/// separators, keeping the text of every key, string and number as it was (so the values read
/// back identically). For ``JSONStyle/reordered``; the input is the simulator's own JSON.
enum JSONMemberReversal {
    /// The rewritten JSON; malformed input is returned unchanged.
    static func rewrite(_ json: [UInt8]) -> [UInt8] {
        var index = 0
        var output: [UInt8] = []
        output.reserveCapacity(json.count + json.count / 4)
        guard value(json, &index, into: &output) else { return json }
        skipSpace(json, &index)
        return index == json.count ? output : json
    }

    private static func skipSpace(_ json: [UInt8], _ index: inout Int) {
        while index < json.count, json[index] == 0x20 || json[index] == 0x0A || json[index] == 0x0D || json[index] == 0x09 {
            index += 1
        }
    }

    /// Copies one value at `index` into `output`, rewritten; false on malformed input.
    private static func value(_ json: [UInt8], _ index: inout Int, into output: inout [UInt8]) -> Bool {
        skipSpace(json, &index)
        guard index < json.count else { return false }
        switch json[index] {
        case UInt8(ascii: "{"): return object(json, &index, into: &output)
        case UInt8(ascii: "["): return array(json, &index, into: &output)
        case UInt8(ascii: "\""):
            guard let end = stringEnd(json, index) else { return false }
            output += json[index..<end]
            index = end
            return true
        default:
            let start = index
            while index < json.count, !",]} \n\r\t".utf8.contains(json[index]) { index += 1 }
            output += json[start..<index]
            return index > start
        }
    }

    /// The index just past the string starting at `start` (escapes skipped), or nil.
    private static func stringEnd(_ json: [UInt8], _ start: Int) -> Int? {
        var index = start + 1
        while index < json.count {
            switch json[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    private static func object(_ json: [UInt8], _ index: inout Int, into output: inout [UInt8]) -> Bool {
        index += 1
        var members: [[UInt8]] = []
        while true {
            skipSpace(json, &index)
            guard index < json.count else { return false }
            if json[index] == UInt8(ascii: "}") { break }
            guard json[index] == UInt8(ascii: "\""), let keyEnd = stringEnd(json, index) else { return false }
            var member = Array(json[index..<keyEnd]) + Array(": ".utf8)
            index = keyEnd
            skipSpace(json, &index)
            guard index < json.count, json[index] == UInt8(ascii: ":") else { return false }
            index += 1
            guard value(json, &index, into: &member) else { return false }
            members.append(member)
            skipSpace(json, &index)
            if index < json.count, json[index] == UInt8(ascii: ",") { index += 1 }
        }
        index += 1
        output.append(UInt8(ascii: "{"))
        for (position, member) in members.reversed().enumerated() {
            if position > 0 { output += ", ".utf8 }
            output += member
        }
        output.append(UInt8(ascii: "}"))
        return true
    }

    private static func array(_ json: [UInt8], _ index: inout Int, into output: inout [UInt8]) -> Bool {
        index += 1
        output.append(UInt8(ascii: "["))
        var first = true
        while true {
            skipSpace(json, &index)
            guard index < json.count else { return false }
            if json[index] == UInt8(ascii: "]") { break }
            if !first { output += ", ".utf8 }
            first = false
            guard value(json, &index, into: &output) else { return false }
            skipSpace(json, &index)
            if index < json.count, json[index] == UInt8(ascii: ",") { index += 1 }
        }
        index += 1
        output.append(UInt8(ascii: "]"))
        return true
    }
}
