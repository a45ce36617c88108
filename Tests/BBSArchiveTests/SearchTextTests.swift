import Foundation
import Testing

@testable import BBSArchive

/// What search sees of text: normalization, the terms of the index, and
/// the query syntax.
@Suite struct SearchTextTests {
    @Test func fullWidthAndCaseFoldTogether() {
        #expect(SearchText.normalize("ＧＰＳ导航") == "gps导航")
        #expect(SearchText.normalize("iPhone １５ Pro") == "iphone 15 pro")
        #expect(SearchText.normalize("ｶﾀｶﾅ") == "カタカナ")
        #expect(SearchText.normalize("㈱") == "(株)")
        // The final sigma as the client folds it (JavaScript's lower case spells it ς, Swift's σ).
        #expect(SearchText.normalize("ΟΔΟΣ οδος") == "οδοσ οδοσ")
    }

    /// The fast paths give what NFKC and lower case of the whole text give,
    /// marks joining ASCII, full-width and CJK neighbours included.
    @Test func normalizeMatchesFoundationOnMixedText() {
        let pool = Array(
            "aZ9 ~<=Ｇｐ１，。！ 清华\u{3099}か\u{0301}\u{0338}\u{0323}\u{FE0F}👍🏻㈱ｶﾞΣσİß\u{1100}\u{1161}\u{11A8}é…\n、【】〔〕─│█"
                .unicodeScalars)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...8, using: &generator) {
                text.append(pool[Int.random(in: 0..<pool.count, using: &generator)])
            }
            let string = String(text)
            #expect(
                Array(SearchText.normalize(string).unicodeScalars)
                    == Array(SearchText.slowNormalize(string).unicodeScalars), "\(string.debugDescription)")
        }
    }

    /// ASCII alone (ids, boards, English posts) takes the shortest path:
    /// what NFKC and lower case make of it, control characters included.
    @Test func asciiTextIsLowerCasedOnly() {
        let every = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self)
        for text in [every, String(every.reversed()), "Astronomy", "moon42", "SYSOP-2 b:x", ""] {
            #expect(
                Array(SearchText.normalize(text).unicodeScalars)
                    == Array(SearchText.slowNormalize(text).unicodeScalars),
                "\(text.debugDescription)")
        }
        #expect(SearchText.normalize("Astronomy") == "astronomy")
        #expect(SearchText.normalize("moon42") == "moon42")
    }

    /// Each character the fast path takes as it is or maps is what NFKC
    /// and lower case make of it, alone and before or after a mark.
    @Test func fastCharactersAreTheirOwnNormalization() {
        var checked = 0
        for value in Array(0..<0x3100) + Array(0x3400..<0x3500) + Array(0x4E00..<0x4F00) + Array(0xFF00..<0xFF70) {
            guard let scalar = Unicode.Scalar(UInt32(value)), SearchText.fastNormalized(scalar) != nil else {
                continue
            }
            checked += 1
            for text in ["\(scalar)", "\(scalar)\u{0301}", "\(scalar)\u{3099}", "e\(scalar)", "\u{1100}\(scalar)"] {
                #expect(
                    Array(SearchText.normalize(text).unicodeScalars)
                        == Array(SearchText.slowNormalize(text).unicodeScalars),
                    "U+\(String(value, radix: 16)) in \(text.debugDescription)")
            }
        }
        #expect(checked > 500)
    }

    /// A row's strings read back as they were, and never hold what would
    /// end a script or a line in one (`<`, U+2028, U+2029, control characters),
    /// whether the text needs escapes or is copied whole.
    @Test func jsonStringsReadBackAndAreSafeInAScript() throws {
        let pool = Array("a 清华\"\\<\n\t\u{2028}\u{2029}\u{2027}\u{E2}é👍\u{1}".unicodeScalars)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                text.append(pool[Int.random(in: 0..<pool.count, using: &generator)])
            }
            let string = String(text)
            let json = SearchIndexWriter.json(string)
            let back = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) as? String
            #expect(back == string, "\(string.debugDescription)")
            #expect(
                !json.unicodeScalars.contains { $0 == "<" || $0 == "\u{2028}" || $0 == "\u{2029}" || $0.value < 0x20 })
        }
    }

    /// Trailing blank lines go from the searchable text, as `CharacterSet.whitespaces` says.
    @Test func blankIsWhatFoundationCallsWhitespace() {
        for value in Array(0..<0x3100) + Array(0x4E00..<0x5000) + [0xFEFF, 0xFF01, 0x1F44D] {
            guard let scalar = Unicode.Scalar(UInt32(value)) else { continue }
            #expect(
                SearchText.isBlank(scalar) == CharacterSet.whitespaces.contains(scalar), "U+\(String(value, radix: 16))"
            )
        }
    }

    /// Texts for `termKeys`: a long one has more distinct characters and
    /// pairs than the tables are first sized for.
    static let termTexts: [String] = {
        let long = String(
            String.UnicodeScalarView((0..<3000).compactMap { Unicode.Scalar(0x4E00 + ($0 * 7919) % 5000) }))
        let tricky = [
            "ＧＰＳ全角！", "e\u{301}cole n\u{303} Ω ТЕСТ", "a\u{A0}b\u{3000}c\u{2028}d\u{85}e\u{1680}f\u{205F}g",
            "\u{10FFFF}\u{1F600}\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}", "\t\u{B}\u{C}中文English混合123",
        ]
        return ["用iphone拍照", "👍🏻好评👍🏻好评", "清华\n北大 mit\r\n  aa aa", "", "x", "ab" + long + "ab\n" + long] + tricky
    }()

    /// The writer keeps one room for `termKeys` a thread, document after
    /// document: each document's terms are those of a room of its own,
    /// after a long document and after a short one.
    @Test func termKeysIntoOneRoomAreEachDocumentsOwn() {
        let room = SearchText.TermRoom()
        let texts = Self.termTexts + Self.termTexts.reversed() + ["清华", ""]
        for text in texts {
            SearchText.termKeys(text, into: room)
            let alone = SearchText.termKeys(text)
            #expect(Array(room.unigrams) == alone.unigrams, "\(text.prefix(12))")
            #expect(room.pairs.map(\.key) == alone.pairs.map(\.key), "\(text.prefix(12))")
            #expect(room.pairs.map(\.position) == alone.pairs.map(\.position), "\(text.prefix(12))")
        }
        #expect(texts.contains { SearchText.termKeys($0).pairs.count > 5000 })
    }

    /// The writer's numeric terms are the same terms.
    @Test func termKeysAreTheTerms() {
        for text in Self.termTexts {
            let terms = SearchText.terms(text)
            let keys = SearchText.termKeys(text)
            // Each pair's positions in one run (the writer's records group them so).
            var seen = Set<UInt64>()
            for (at, pair) in keys.pairs.enumerated() where at == 0 || keys.pairs[at - 1].key != pair.key {
                #expect(seen.insert(pair.key).inserted)
            }
            #expect(Set(keys.unigrams.map { SearchText.termText(UInt64($0), pair: false) }) == terms.unigrams)
            // Each character once, in the order it first occurs (a shard's file orders its terms itself).
            var known = Set<UInt32>()
            let firstSeen = text.unicodeScalars.filter {
                !SearchText.isQuerySpace($0) && known.insert($0.value).inserted
            }
            #expect(keys.unigrams == firstSeen.map(\.value))
            var pairs: [String: [Int]] = [:]
            for (key, position) in keys.pairs {
                pairs[SearchText.termText(key, pair: true), default: []].append(position)
            }
            #expect(pairs == terms.bigrams)
            for (key, _) in keys.pairs {
                #expect(
                    SearchIndexWriter.hash(key: key, pair: true)
                        == SearchIndexWriter.hash(SearchText.termText(key, pair: true)))
            }
        }
    }

    /// Whatever a query keeps as a one-character term is indexed where a post holds it:
    /// the index leaves out only what a query splits on (QA F4: U+0085 is
    /// Unicode's White_Space, not JavaScript's `\s`, and was never found).
    @Test func everyCharacterAQueryKeepsIsIndexed() {
        for value in Array(0..<0x3100) + [0xFEFF, 0xFF01, 0x1F44D] {
            guard let scalar = Unicode.Scalar(UInt32(value)) else { continue }
            let text = SearchText.normalize("a\(scalar)b")
            let indexed = SearchText.terms(text).unigrams
            // A term of one character is looked for as one (longer ones by their pairs).
            for term in SearchText.parse(String(scalar)).terms
            where term.unicodeScalars.count == 1 && text.unicodeScalars.contains(where: { String($0) == term }) {
                #expect(indexed.contains(term), "U+\(String(scalar.value, radix: 16))")
            }
        }
    }

    /// NFKC as Unicode defines it, where Foundation's parts from it (QA
    /// F2): a post is filed under what the page makes of a query.
    @Test(arguments: [
        ("ｶﾞﾝﾀﾞﾑ", "ガンダム"), ("ㅎㅏㄴ", "\u{D558}\u{1102}"), ("가\u{11A8}", "\u{AC01}"),
        ("\u{1100}\u{1176}", "\u{1100}\u{1176}"), ("\u{1112}\u{1176}", "\u{1112}\u{1176}"),
        ("\u{A8}\u{FF9E}", " \u{3099}\u{308}"), ("Ａ\u{301}", "\u{E1}"), ("\u{1CCD6}\u{1CCF9}", "a9"), ("\u{A7F1}", "s"),
    ])
    func compositionIsUnicodes(_ text: String, _ expected: String) {
        #expect(
            Array(SearchText.normalize(text).unicodeScalars) == Array(expected.unicodeScalars),
            "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func everyCharacterAndEveryNeighbourPairIsATerm() {
        let terms = SearchText.terms(SearchText.normalize("用iPhone拍照"))
        #expect(terms.unigrams == Set(["用", "i", "p", "h", "o", "n", "e", "拍", "照"]))
        // Pairs cross the CJK/Latin boundary, so "用iph" and "ne拍" are findable.
        #expect(terms.bigrams["用i"] == [0])
        #expect(terms.bigrams["ne"] == [5])
        #expect(terms.bigrams["e拍"] == [6])
        #expect(terms.bigrams.count == 8)
    }

    @Test func positionsCountUnicodeScalarsSoEmojiKeepTheirPlace() {
        let terms = SearchText.terms("👍🏻好评👍🏻")
        #expect(terms.bigrams["👍🏻"] == [0, 4])
        #expect(terms.bigrams["🏻好"] == [1])
        #expect(terms.bigrams["评👍"] == [3])
        #expect(terms.unigrams.contains("👍"))
    }

    @Test func noPairSpansALineBreakAndSpacesAreNoTermsAlone() {
        let terms = SearchText.terms("清华\n北大 mit")
        #expect(terms.bigrams["华\n"] == nil)
        #expect(terms.bigrams["\n北"] == nil)
        #expect(terms.bigrams["大 "] == [4])
        #expect(!terms.unigrams.contains(" "))
        #expect(!terms.unigrams.contains("\n"))
    }

    @Test func queriesSplitIntoTermsPhrasesAndFilters() {
        let query = SearchText.parse(#"清华 "iPhone 15" board:WorkLife author:SYSOP after:2024-01-02 before:2024-12-31"#)
        #expect(query.terms == ["清华", "iphone 15"])
        #expect(query.board == "worklife")
        #expect(query.author == "sysop")
        #expect(query.after == "2024-01-02")
        #expect(query.before == "2024-12-31")
        // A quoted filter is a term; so is a word with a colon that names no filter.
        #expect(SearchText.parse(#""board:x""#).terms == ["board:x"])
        #expect(SearchText.parse("a:b http://x.org").terms == ["a:b", "http://x.org"])
        #expect(SearchText.parse("ＧＰＳ").terms == ["gps"])
    }

    /// Filters as a reader types them: the key after NFKC and case folding
    /// (a Chinese input method's full-width colon), the value in quotes, a
    /// filter not finished yet left out, dates of one or two digits.
    @Test func filtersAreReadAsReadersTypeThem() {
        #expect(SearchText.parse("board：Photos").board == "photos")
        #expect(SearchText.parse("ＢＯＡＲＤ:Photos").board == "photos")
        #expect(SearchText.parse(#"board:"Photos" 价格"#) == SearchText.Query(terms: ["价格"], board: "photos"))
        #expect(SearchText.parse(#"author:"Ａｌｉｃｅ"#).author == "alice")
        // Nothing after the colon yet: no filter, and not a term either.
        #expect(SearchText.parse("的 before:") == SearchText.Query(terms: ["的"]))
        #expect(SearchText.parse("价格 author: board:") == SearchText.Query(terms: ["价格"]))
        #expect(SearchText.parse("after:2026-1-5").after == "2026-01-05")
        #expect(SearchText.parse("before:２０２４－０２－２９").before == "2024-02-29")
        // Two of a kind must both hold: the later day of two after:, the
        // earlier of two before:, no post for two boards.
        let dates = SearchText.parse("after:2024-01-01 after:2024-03-01 before:2024-05-01 before:2024-04-01")
        #expect(dates.after == "2024-03-01")
        #expect(dates.before == "2024-04-01")
        #expect(SearchText.parse("board:A board:a").canMatch)
        #expect(SearchText.parse("board:A board:a").board == "a")
        #expect(!SearchText.parse("board:Photos board:PieLove").canMatch)
        #expect(!SearchText.parse("author:a author:b 的").canMatch)
    }

    /// A date filter whose value is no day is a problem the client says,
    /// not a term to search for and not a filter that lets every post through.
    @Test(arguments: [
        "after:2025-13-45", "after:2026-02-30", "before:2023-02-29", "after:yesterday", "before:2024-1",
        "after:20240101", "before:2024-001-01", "after:0000-00-10",
    ])
    func aDateThatIsNoDayIsAProblem(_ text: String) {
        let query = SearchText.parse("的 " + text)
        #expect(query.problems == [text])
        #expect(query.terms == ["的"])
        #expect(query.after == nil && query.before == nil)
        #expect(!query.canMatch)
        #expect(!query.isEmpty)
    }

    /// A term given twice, in any spelling that normalizes alike, is one
    /// condition: the page does its work once for it.
    @Test func aRepeatedTermIsOneTerm() {
        #expect(SearchText.parse("甲 甲 \"甲\" ＧＰＳ gps GPS 乙").terms == ["甲", "gps", "乙"])
        #expect(SearchText.parse(Array(repeating: "zq", count: 8000).joined(separator: " ")).terms == ["zq"])
    }

    @Test(arguments: ["", "   ", "\"\"", "\" \"", "\t\n", "\"", "board:", "after: author:"])
    func theEmptyQueryHasNothingToFind(_ text: String) {
        #expect(SearchText.parse(text).isEmpty)
    }

    @Test func searchableTextHasTheTitleOnceAndLeavesQuotesOut() {
        let body = "我的看法\n【 在 alice (A) 的大作中提到: 】\n: 引用的话\n--\n※ 来源:·水木社区 ·[FROM: 1.2.3.*]"
        let first = StoredPost(
            board: "B", gid: 1, floor: 0, author: "bob", postedAt: Date(), body: body, ip: nil, editedBy: nil,
            attachments: [], signature: "签名档")
        let text = SearchText.searchable(post: first, threadTitle: "标题", conventions: Fixtures.smthForum.conventions)
        #expect(text.hasPrefix("标题\n我的看法"))
        #expect(!text.contains("引用的话"))
        #expect(text.contains("FROM: 1.2.3.*"))
        #expect(text.hasSuffix("签名档"))
        var reply = first
        reply.floor = 1
        #expect(
            !SearchText.searchable(post: reply, threadTitle: "标题", conventions: Fixtures.smthForum.conventions)
                .contains("标题"))
    }

    /// A post is filed under its author as `author:` with the id as the
    /// archive shows it looks for it: NFKC, lower case and the sigma fold,
    /// as the query's value. Lower-cased alone, `Ａｂｃ`, `ǅx` and a final
    /// `ς` were filed under terms no query reaches.
    @Test(arguments: ["Ａｂｃ", "ǅx", "ΟΔΟΣ", "Alice", "ﬁsh"])
    func aPostIsFiledUnderItsAuthorAsAQueryNamesThem(author: String) throws {
        let post = StoredPost(
            board: "Ｂoard", gid: 1, floor: 0, author: author, postedAt: Date(timeIntervalSince1970: 1_700_000_000),
            body: "正文", ip: nil, editedBy: nil, attachments: [])
        let document = SearchIndexWriter.document(
            post: post, threadTitle: "标题", position: 0, postsPerPage: 20, forum: Fixtures.smthForum)
        let query = SearchText.parse("author:\(author) board:Ｂoard")
        let wanted = try ["b:" + #require(query.board), "a:" + #require(query.author)]
        #expect(SearchIndexWriter.filters(document) == wanted)
    }

    @Test func varintsAndTheShardHashMatchTheClient() {
        var bytes: [UInt8] = []
        for value in [0, 1, 127, 128, 300, 1 << 40] { varint(value, into: &bytes) }
        var index = 0
        var read: [Int] = []
        while let value = readVarint(bytes, &index) { read.append(value) }
        #expect(read == [0, 1, 127, 128, 300, 1 << 40])
        // FNV-1a's published test vectors; search.js computes the same.
        #expect(SearchIndexWriter.hash("") == 0x811c_9dc5)
        #expect(SearchIndexWriter.hash("a") == 0xe40c_292c)
        #expect(SearchIndexWriter.hash("foobar") == 0xbf9c_f968)
    }
}
