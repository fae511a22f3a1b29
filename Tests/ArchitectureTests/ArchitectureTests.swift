import Foundation
import XCTest

@testable import RegionSearchCore

/// docs/ARCHITECTURE.md held against the code: each target imports exactly the package modules
/// its row of the table lists, which are exactly its dependencies in Package.swift; the
/// unchecked-Sendable escapes are the ones the rules name; no source is architecture-specific.
final class ArchitectureTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// A target of the package as `swift package dump-package` describes it.
    struct Target {
        var name: String
        var type: String
        var path: String
        var dependencies: Set<String>
    }

    /// The package's targets, from SwiftPM itself (in a scratch directory of its own, so it never
    /// waits for the lock of the build running these tests).
    static let targets: Result<[Target], ToolFailure> = {
        let scratch = NSTemporaryDirectory() + "regionsearch-dump-package-\(getpid())"
        let out = scratch + ".json"
        defer {
            try? FileManager.default.removeItem(atPath: scratch)
            unlink(out)
        }
        do {
            let termination = try ChildProcess.run(
                "/usr/bin/env",
                ["swift", "package", "--package-path", root, "--scratch-path", scratch, "dump-package"],
                output: .files(stdout: out, stderr: "/dev/null"))
            guard case .exited(0) = termination else { return .failure(ToolFailure("dump-package: \(termination)")) }
            let json = try JSONParser.parse(String(contentsOfFile: out, encoding: .utf8))
            var targets: [Target] = []
            for t in json["targets"]?.arrayValue ?? [] {
                guard let name = t["name"]?.stringValue, let type = t["type"]?.stringValue else { continue }
                let path = t["path"]?.stringValue ?? (type == "test" ? "Tests/" : "Sources/") + name
                var dependencies = Set<String>()
                for d in t["dependencies"]?.arrayValue ?? [] {
                    for (_, v) in d.objectValue ?? [] {
                        if let n = v.arrayValue?.first?.stringValue { dependencies.insert(n) }
                    }
                }
                targets.append(Target(name: name, type: type, path: path, dependencies: dependencies))
            }
            return .success(targets)
        } catch {
            return .failure(ToolFailure("dump-package: \(error)"))
        }
    }()

    /// The Swift files under `directory` (relative to the repository).
    static func swiftFiles(_ directory: String) -> [String] {
        let base = root + "/" + directory
        let walker = FileManager.default.enumerator(atPath: base)
        var files: [String] = []
        while let f = walker?.nextObject() as? String {
            if f.hasSuffix(".swift") { files.append(base + "/" + f) }
        }
        return files.sorted()
    }

    /// The modules a source file imports (`import X`, `@testable import X`, `import struct X.Y`).
    static func imports(_ path: String) throws -> Set<String> {
        var found = Set<String>()
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            var words = line.split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") || ["public", "internal", "package"].contains(first) {
                words.removeFirst()
            }
            guard words.first == "import", words.count >= 2 else { continue }
            let kinds = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
            let module = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
            found.insert(String(module.split(separator: ".").first ?? ""))
        }
        return found
    }

    /// The imports column of the table in docs/ARCHITECTURE.md, by target.
    static func documentedImports() throws -> [String: Set<String>] {
        let text = try String(contentsOfFile: root + "/docs/ARCHITECTURE.md", encoding: .utf8)
        var table: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `RegionSearch") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4 else { continue }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let column = cells[cells.count - 2]
            table[name] = Set(
                column.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0 != "—" }.map {
                    $0.hasPrefix("C") && $0.dropFirst().first?.isUppercase == true ? $0 : "RegionSearch" + $0
                })
        }
        return table
    }

    func testEveryTargetImportsWhatTheTableAndPackageSwiftDeclare() throws {
        let targets = try Self.targets.get()
        let packageModules = Set(targets.map(\.name))
        let executables = Set(targets.filter { $0.type == "executable" }.map(\.name))
        let table = try Self.documentedImports()
        let libraries = targets.filter { $0.type == "regular" && $0.name.hasPrefix("RegionSearch") }
        XCTAssertEqual(Set(table.keys), Set(libraries.map(\.name)), "the table has one row per library target")
        // C targets (no Swift files: CLibraryLoader and the libraries it loads) include what
        // they use, and their compiler checks it.
        for target in targets where target.type != "system" && !Self.swiftFiles(target.path).isEmpty {
            var imported = Set<String>()
            for file in Self.swiftFiles(target.path) {
                imported.formUnion(try Self.imports(file).intersection(packageModules))
            }
            // Executables are dependencies of the end-to-end tests (built for them), never imported.
            let declared = target.dependencies.subtracting(executables)
            XCTAssertEqual(
                imported.sorted(), declared.sorted(),
                "\(target.name): imports (left) and Package.swift dependencies (right) differ")
            if let documented = table[target.name] {
                XCTAssertEqual(
                    documented.sorted(), declared.sorted(),
                    "\(target.name): docs/ARCHITECTURE.md (left) and Package.swift (right) differ")
            }
        }
        // Only the wrapping target imports a C library.
        let owners = [
            "CGEOS": "RegionSearchOutput", "CPROJ": "RegionSearchProjection", "CGDAL": "RegionSearchGDAL",
            "CCairo": "RegionSearchMaps", "CZlib": "RegionSearchIngest",
        ]
        for (module, owner) in owners {
            let users = libraries.filter { $0.dependencies.contains(module) }.map(\.name)
            XCTAssertEqual(users, [owner], "\(module) is imported by \(users)")
        }
    }

    /// The rule "No shared mutable globals" names every file that uses `UncheckedSendable` and
    /// every type that is `@unchecked Sendable`.
    func testUncheckedSendableOnlyWhereTheRulesSay() throws {
        let text = try String(contentsOfFile: Self.root + "/docs/ARCHITECTURE.md", encoding: .utf8)
        guard let start = text.range(of: "- **No shared mutable globals.**") else {
            return XCTFail("docs/ARCHITECTURE.md has no rule 'No shared mutable globals'")
        }
        let after = text[start.upperBound...]
        let rule = String(after[..<(after.range(of: "\n- ")?.lowerBound ?? after.endIndex)])
        for file in Self.swiftFiles("Sources") {
            let source = try String(contentsOfFile: file, encoding: .utf8)
            let name = URL(fileURLWithPath: file).lastPathComponent
            if source.contains("UncheckedSendable(") {
                XCTAssertTrue(rule.contains("`\(name)`"), "\(name) uses UncheckedSendable; the rule does not name it")
            }
            for line in source.split(separator: "\n") where line.contains("@unchecked Sendable") {
                let words = line.split(whereSeparator: { " :<(".contains($0) }).map(String.init)
                guard let i = words.firstIndex(where: { ["struct", "class", "enum", "extension"].contains($0) }),
                    i + 1 < words.count
                else { continue }
                XCTAssertTrue(
                    rule.contains("`\(words[i + 1])`"),
                    "\(name): \(words[i + 1]) is @unchecked Sendable; the rule does not name it")
            }
        }
    }

    /// No assembly and no architecture-conditional code: the package builds wherever Swift and
    /// its C libraries do (scripts/check-aarch64 compiles the C for aarch64).
    func testNoAssemblyAndNoArchitectureConditions() throws {
        let walker = FileManager.default.enumerator(atPath: Self.root + "/Sources")
        var checked = 0
        while let f = walker?.nextObject() as? String {
            let ext = URL(fileURLWithPath: f).pathExtension
            XCTAssertFalse(["S", "s", "asm"].contains(ext), "assembly: Sources/\(f)")
            guard ["swift", "c", "h", "def", "modulemap"].contains(ext) else { continue }
            let text = try String(contentsOfFile: Self.root + "/Sources/" + f, encoding: .utf8)
            for marker in ["#if arch(", "__x86_64__", "__amd64__", "__i386__", "__aarch64__", "__arm64__", "__arm__"] {
                XCTAssertFalse(text.contains(marker), "Sources/\(f) has \(marker)")
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 300)
    }

    /// Identifiers that exist only in Linux's C library (or its Swift module): each must stand in
    /// a Linux branch (`#if os(Linux)`, `#if canImport(Glibc)`, or the `#else` of a Darwin
    /// condition), since macOS has none of them and the package is written for it too (README,
    /// Platforms). Each is a whole word of the code, comments left out.
    static let linuxOnly = [
        "Glibc.", "MADV_HUGEPAGE", "MADV_NOHUGEPAGE", "MADV_POPULATE_READ", "MADV_POPULATE_WRITE",
        "CLOCK_REALTIME_COARSE", "CLOCK_MONOTONIC_COARSE", "CLOCK_BOOTTIME", "posix_fadvise", "POSIX_FADV_",
        "__rusage_who_t", "__sigaction_handler", "st_mtim", "st_ctim", "st_atim", "environ", "O_TMPFILE", "O_PATH",
        "O_DIRECT", "O_NOATIME", "MAP_POPULATE", "MAP_HUGETLB", "malloc_trim", "malloc_usable_size", "mallopt",
        "sched_getaffinity", "get_nprocs", "pipe2", "dup3", "accept4", "copy_file_range", "sendfile", "fallocate",
        "prctl", "signalfd", "epoll_create1", "epoll_wait", "inotify_init1", "memfd_create", "statx", "renameat2",
        "SOCK_CLOEXEC", "MSG_NOSIGNAL", "sysinfo",
        // Structs in glibc, opaque pointers (optionals in Swift) on Darwin.
        "posix_spawn_file_actions_t()", "posix_spawnattr_t()",
    ]
    /// Identifiers that exist only on Darwin: each must stand in a Darwin branch.
    static let darwinOnly = [
        "Darwin.", "st_mtimespec", "st_ctimespec", "__sigaction_u", "_NSGetEnviron", "F_FULLFSYNC",
    ]

    /// The lines of Swift `text` that use an identifier of `linuxOnly` outside a Linux branch or
    /// one of `darwinOnly` outside a Darwin branch (as "line: identifier").
    static func unguardedPlatformCalls(_ text: String) -> [String] {
        struct Branch {
            var linux: Bool
            var darwin: Bool
        }
        func branch(_ condition: Substring, negated: Bool) -> Branch {
            let isLinux = condition.contains("os(Linux)") || condition.contains("canImport(Glibc)")
            let isDarwin = condition.contains("canImport(Darwin)") || condition.contains("os(macOS)")
            return negated
                ? Branch(linux: isDarwin, darwin: isLinux) : Branch(linux: isLinux, darwin: isDarwin)
        }
        func uses(_ code: Substring, _ word: String) -> Bool {
            var rest = code[...]
            while let r = rest.range(of: word) {
                let before = r.lowerBound == code.startIndex ? nil : code[code.index(before: r.lowerBound)]
                let after = r.upperBound == code.endIndex ? nil : code[r.upperBound]
                let isPart = { (c: Character?) in c.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false }
                if !isPart(before) && (word.hasSuffix(".") || word.hasSuffix("_") || !isPart(after)) { return true }
                rest = code[r.upperBound...]
            }
            return false
        }
        var stack: [(condition: Substring, branch: Branch)] = []
        var found: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.drop(while: { $0 == " " })
            if line.hasPrefix("#if ") {
                let condition = line.dropFirst(4)
                stack.append((condition, branch(condition, negated: false)))
                continue
            }
            if line.hasPrefix("#elseif "), !stack.isEmpty {
                let condition = line.dropFirst(8)
                stack[stack.count - 1] = (condition, branch(condition, negated: false))
                continue
            }
            if line.hasPrefix("#else"), !stack.isEmpty {
                stack[stack.count - 1].branch = branch(stack[stack.count - 1].condition, negated: true)
                continue
            }
            if line.hasPrefix("#endif") {
                _ = stack.popLast()
                continue
            }
            let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line
            let inLinux = stack.contains { $0.branch.linux }
            let inDarwin = stack.contains { $0.branch.darwin }
            for word in linuxOnly where !inLinux && uses(code, word) { found.append("\(number + 1): \(word)") }
            for word in darwinOnly where !inDarwin && uses(code, word) { found.append("\(number + 1): \(word)") }
        }
        return found
    }

    /// The Swift sources compile on macOS as on Linux, as far as a Linux build can tell: a file
    /// that imports Glibc also imports Darwin (or Foundation, which brings it), and the
    /// identifiers only one C library has stand in that platform's branch.
    func testLinuxOnlyAndDarwinOnlyCallsStandInTheirBranch() throws {
        let walker = FileManager.default.enumerator(atPath: Self.root + "/Sources")
        var checked = 0
        while let f = walker?.nextObject() as? String {
            guard f.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: Self.root + "/Sources/" + f, encoding: .utf8)
            if text.contains("import Glibc") {
                XCTAssertTrue(
                    text.contains("import Darwin") || text.contains("import Foundation"),
                    "Sources/\(f) imports Glibc but not Darwin: its C library calls would not be found on macOS")
            }
            for use in Self.unguardedPlatformCalls(text) {
                XCTFail("Sources/\(f):\(use) is outside that platform's #if branch")
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 300)
    }

    /// The branch tracking of ``unguardedPlatformCalls(_:)`` on its own.
    func testUnguardedPlatformCallsSeesBranches() {
        let text = """
            let a = environ
            #if canImport(Glibc)
                let b = Glibc.read(fd, p, n)
            #else
                let c = Darwin.read(fd, p, n)
                let d = st.st_mtim
            #endif
            #if os(Linux)
                _ = posix_fadvise(fd, 0, 0, 2)
            #endif
            let e = st.st_mtimespec  // st_mtim in a comment
            let f = environment
            """
        XCTAssertEqual(Self.unguardedPlatformCalls(text), ["1: environ", "6: st_mtim", "11: st_mtimespec"])
    }
}
