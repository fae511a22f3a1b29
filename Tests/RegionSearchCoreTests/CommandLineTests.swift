import XCTest

@testable import RegionSearchCore
@testable import RegionSearchTestSupport

/// The command-line parser (``CommandSpec/parse(_:)``) and its result.
final class CommandLineTests: XCTestCase {
    static let output = CommandSpec.Option("output", .path, help: "Where to write.")
    static let inputSpec = CommandSpec.Option(
        "input-spec", .text, repeatable: true, placeholder: "JSON", help: "One input.")
    static let force = CommandSpec.Option("force", .flag, help: "Overwrite.")
    static let count = CommandSpec.Option("count", .integer(1...64), default: .value(.number(8)), help: "How many.")
    static let share = CommandSpec.Option(
        "share", .number(min: 0, max: 1, minExclusive: true), help: "A share.")
    static let mode = CommandSpec.Option("mode", .choice(["fast", "exact"]), default: .required, help: "How.")
    static let sizes = CommandSpec.Option(
        "sizes", .list(.integer(1...Int.max)), default: .value(.array([.number(1), .number(2)])), help: "Sizes.")
    static let maxEdge = ParameterSpec(
        "max_edge_m", .number(min: 0, max: nil, minExclusive: true), default: .number(500), help: "Longest edge.")
    static let keywords = ParameterSpec("keywords", .stringList, default: nil, help: "Keywords.")
    static let method = ParameterSpec("method", .choice(["a", "b"]), default: .string("a"), help: "Method.")

    private func spec(positionals: Bool = true) -> CommandSpec {
        CommandSpec(
            name: "tool", abstract: "a test tool", positionals: positionals ? ["FILE..."] : [],
            options: [Self.output, Self.inputSpec, Self.force, Self.count, Self.share, Self.mode, Self.sizes],
            parameters: [Self.maxEdge, Self.keywords, Self.method])
    }

    private func parse(_ args: [String], positionals: Bool = true) throws(UsageError) -> ParsedCommandLine {
        try spec(positionals: positionals).parse(args)
    }

    /// The message of the usage error `args` give.
    private func failure(_ args: [String], positionals: Bool = true, file: StaticString = #filePath, line: UInt = #line)
        -> String?
    {
        do {
            _ = try parse(args, positionals: positionals)
            XCTFail("\(args) parsed", file: file, line: line)
            return nil
        } catch {
            return error.message
        }
    }

    func testValueWithEqualsOrAsTheNextArgument() throws {
        XCTAssertEqual(try parse(["--output=a.rsa"]).value(Self.output), "a.rsa")
        XCTAssertEqual(try parse(["--output", "a.rsa"]).value(Self.output), "a.rsa")
        XCTAssertEqual(try parse(["--output="]).value(Self.output), "", "an empty inline value")
        XCTAssertEqual(try parse(["--output=x=y"]).value(Self.output), "x=y", "only the first '=' separates")
        // The next argument is the value whatever it looks like: negative numbers, dashes, options.
        XCTAssertEqual(try parse(["--max-edge-m", "-5"]).parameterTexts["max_edge_m"], ["-5"])
        XCTAssertEqual(try parse(["--output", "--force"]).value(Self.output), "--force")
        XCTAssertFalse(try parse(["--output", "--force"]).flag(Self.force))
        XCTAssertEqual(try parse(["--max-edge-m=250"]).parameterTexts["max_edge_m"], ["250"])
    }

    func testDoubleDashEndsOptions() throws {
        let p = try parse(["a", "--force", "--", "--output", "-", "--x=1", "--"])
        XCTAssertEqual(p.positionals, ["a", "--output", "-", "--x=1", "--"])
        XCTAssertTrue(p.flag(Self.force))
        XCTAssertNil(p.value(Self.output))
        XCTAssertEqual(failure(["--", "x"], positionals: false), "unexpected argument 'x'")
    }

    func testRepeatedOptions() throws {
        let p = try parse(["--input-spec", "{}", "--input-spec={\"a\":1}", "--keywords", "cafe,bank", "--keywords=咖啡"])
        XCTAssertEqual(p.all(Self.inputSpec), ["{}", "{\"a\":1}"])
        XCTAssertEqual(p.value(Self.inputSpec), "{\"a\":1}", "value() is the last")
        XCTAssertEqual(try p.parameters()["keywords"], .array([.string("cafe"), .string("bank"), .string("咖啡")]))
        XCTAssertEqual(p.all(Self.output), [])
        // A single-valued option may not repeat; a repeated number parameter takes the last value.
        XCTAssertEqual(failure(["--output", "a", "--output=b"]), "option '--output' given 2 times")
        XCTAssertEqual(
            try parse(["--keywords", "x", "--max-edge-m", "1", "--max-edge-m", "2"]).parameters().double(Self.maxEdge),
            2)
    }

    func testFlags() throws {
        let p = try parse(["--force", "--quiet", "--force"])
        XCTAssertTrue(p.flag(Self.force))
        XCTAssertTrue(p.flag(.quiet), "every command has --quiet")
        XCTAssertFalse(p.flag(.help))
        XCTAssertTrue(try parse(["-h"]).flag(.help))
        XCTAssertTrue(try parse(["--help"]).flag(.help))
        XCTAssertEqual(failure(["--force=yes"]), "option '--force' takes no value")
    }

    func testUnknownOptions() {
        XCTAssertEqual(failure(["--outptu", "x"]), "unknown option '--outptu' (did you mean '--output'?)")
        XCTAssertEqual(failure(["--max-edge=3"]), "unknown option '--max-edge' (did you mean '--max-edge-m'?)")
        XCTAssertEqual(failure(["--zzzzzzzzzz"]), "unknown option '--zzzzzzzzzz'")
        XCTAssertEqual(failure(["-o", "x"]), "unknown option '-o' (options are spelled --name)")
        XCTAssertEqual(failure(["---output", "x"]), "unknown option '---output' (did you mean '--output'?)")
    }

    func testMissingValues() throws {
        XCTAssertEqual(failure(["--output"]), "option '--output' needs a value")
        XCTAssertEqual(failure(["a", "--max-edge-m"]), "option '--max-edge-m' needs a value")
        XCTAssertEqual(failure(["--input-spec"]), "option '--input-spec' needs a value")
        XCTAssertThrowsError(try parse([]).required(Self.output)) {
            XCTAssertEqual(($0 as? UsageError)?.message, "missing required option '--output'")
        }
        XCTAssertEqual(try parse(["--output", "o"]).required(Self.output), "o")
    }

    func testPositionals() throws {
        XCTAssertEqual(
            try parse(["a.csv", "--output", "o", "b.csv", "-", "c d"]).positionals, ["a.csv", "b.csv", "-", "c d"])
        XCTAssertEqual(try parse([]).positionals, [])
        XCTAssertEqual(failure(["a.csv"], positionals: false), "unexpected argument 'a.csv'")
        XCTAssertEqual(failure(["--output", "o", "-"], positionals: false), "unexpected argument '-'")
    }

    func testParametersFromDefaultsAndTheCommandLine() throws {
        let p = try parse(["--keywords", "bank", "--method", "b", "--max-edge-m", "1e3"]).parameters()
        XCTAssertEqual(p.double(Self.maxEdge), 1000)
        XCTAssertEqual(p.string(Self.method), "b")
        XCTAssertEqual(p.strings(Self.keywords), ["bank"])
        XCTAssertEqual(try parse(["--keywords", "x"]).parameters().double(Self.maxEdge), 500, "the default")
        func parameterFailure(_ args: [String]) -> String? {
            do {
                _ = try parse(args).parameters()
                return nil
            } catch {
                return error.message
            }
        }
        XCTAssertEqual(parameterFailure([]), "missing required option '--keywords' (Keywords.)")
        XCTAssertEqual(
            parameterFailure(["--keywords", "x", "--max-edge-m", "0"]), "--max-edge-m: expected a number > 0, got 0")
        XCTAssertEqual(
            parameterFailure(["--keywords", "x", "--max-edge-m", "far"]),
            "--max-edge-m: expected a number > 0, got \"far\"")
        XCTAssertEqual(
            parameterFailure(["--keywords", "x", "--method", "c"]), "--method: expected one of \"a\", \"b\", got \"c\"")
    }

    func testOptionValuesAreCheckedAgainstTheirDomainsAndReadTyped() throws {
        let p = try parse(["--count", "12", "--share=0.25", "--mode", "exact", "--sizes", "3, 1e3"])
        XCTAssertEqual(p.integer(Self.count), 12)
        XCTAssertEqual(p.optionalNumber(Self.share), 0.25)
        XCTAssertEqual(p.string(Self.mode), "exact")
        XCTAssertEqual(p.list(Self.sizes), [.number(3), .number(1000)])
        // Defaults are read as if given; an option without one is nil.
        let q = try parse([])
        XCTAssertEqual(q.integer(Self.count), 8)
        XCTAssertEqual(q.list(Self.sizes), [.number(1), .number(2)])
        XCTAssertNil(q.optionalNumber(Self.share))
        XCTAssertFalse(q.isGiven(Self.count))
        XCTAssertEqual(failure(["--count", "0"]), "--count: expected an integer in [1, 64], got \"0\"")
        XCTAssertEqual(failure(["--count", "2.5"]), "--count: expected an integer in [1, 64], got \"2.5\"")
        XCTAssertEqual(failure(["--share", "0"]), "--share: expected a number in (0, 1], got \"0\"")
        XCTAssertEqual(failure(["--share", "nan"]), "--share: expected a number in (0, 1], got \"nan\"")
        XCTAssertEqual(failure(["--share", "0x1p-2"]), "--share: expected a number in (0, 1], got \"0x1p-2\"")
        XCTAssertEqual(
            failure(["--mode", "exakt"]), "--mode: expected one of fast, exact, got \"exakt\" (did you mean 'exact'?)")
        XCTAssertEqual(
            failure(["--sizes", "1,,2"]),
            "--sizes: expected a list, each an integer ≥ 1, separated by commas, got \"1,,2\"")
        XCTAssertThrowsError(try q.required(Self.mode))
    }

    /// An integer option whose range reaches Int.max (a seed, a repeat count) took any 19-digit
    /// value, then trapped reading it back (`regionsearch-generate --seed 9223372036854775807`):
    /// values are carried as JSON numbers, exact only below 9e15.
    func testIntegerOptionsRefuseWhatTheyCannotCarryExactly() throws {
        let seed = CommandSpec.Option("seed", .integer(0...Int.max), default: .value(.number(42)), help: "Seed.")
        let spec = CommandSpec(name: "tool", abstract: "a test tool", options: [seed, Self.sizes])
        XCTAssertEqual(try spec.parse(["--seed", "8999999999999999"]).integer(seed), 8_999_999_999_999_999)
        for big in ["9000000000000000", "9007199254740993", "9223372036854775807"] {
            XCTAssertThrowsError(try spec.parse(["--seed", big]), big) { error in
                XCTAssertEqual(
                    (error as? UsageError)?.description,
                    "--seed: expected an integer ≥ 0, at most 8999999999999999 in magnitude (larger integers are not "
                        + "carried exactly), got \"\(big)\"")
            }
        }
        XCTAssertThrowsError(try spec.parse(["--sizes", "1,9223372036854775807"]))
    }

    func testOneNumberSyntax() {
        XCTAssertEqual(ValueSyntax.number(" 1e-6 "), 1e-6)
        XCTAssertEqual(ValueSyntax.number("-.5"), -0.5)
        for bad in ["", "inf", "nan", "0x10", "1,5", "1e", "--1"] { XCTAssertNil(ValueSyntax.number(bad), bad) }
        XCTAssertEqual(ValueSyntax.integer("9007199254740993"), 9_007_199_254_740_993, "digits are exact")
        XCTAssertEqual(ValueSyntax.integer("1e6"), 1_000_000)
        XCTAssertNil(ValueSyntax.integer("2.5"))
        XCTAssertEqual(ValueSyntax.boolean("Yes"), true)
        XCTAssertNil(ValueSyntax.boolean("maybe"))
    }

    func testHelpAndUsageAreWrittenFromTheDeclarations() {
        let help = spec().helpText
        // Positionals, the required option, then every other option and parameter, wrapped at 100
        // columns under the command's name.
        XCTAssertTrue(
            help.hasPrefix(
                "tool — a test tool\n\nUsage: tool FILE... --mode fast|exact [--output PATH] [--input-spec JSON]... "
                    + "[--force] [--count N]\n"
                    + "            [--share X] [--sizes N,...] [--max-edge-m NUM] [--keywords A,B,...] [--method a|b]\n"
            ),
            help)
        XCTAssertTrue(help.contains("  --output PATH\n        Where to write.\n"), help)
        XCTAssertTrue(help.contains("  --input-spec JSON\n        One input. (repeatable)\n"), help)
        XCTAssertTrue(help.contains("  --force\n        Overwrite.\n"), help)
        XCTAssertTrue(help.contains("  --count N\n        How many. (an integer in [1, 64]; default 8)\n"), help)
        XCTAssertTrue(help.contains("  --mode fast|exact\n        How. (required)\n"), help)
        XCTAssertTrue(
            help.contains("  --max-edge-m NUM\n        Longest edge. [max_edge_m; a number > 0; default 500]\n"), help)
        XCTAssertTrue(
            help.contains("  --keywords A,B,...\n        Keywords. [keywords; a list of strings; required]\n"), help)
        XCTAssertEqual(spec().shortUsage, "tool FILE... [options]")
    }
}
