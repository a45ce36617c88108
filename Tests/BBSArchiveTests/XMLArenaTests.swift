import BBSArchiveTestSupport
import CLibXML2
import CXMLArena
import Foundation
import Testing

@testable import BBSArchive

#if canImport(Glibc)
    import Glibc
#endif

/// The per-document arena behind libxml2's allocator (`CXMLArena`), and
/// the documents that live in it.
@Suite struct XMLArenaTests {
    @Test func servesFromTheCurrentArenaAndFromMallocOutside() throws {
        let arena = try #require(bbs_xml_arena_create())
        defer { bbs_xml_arena_destroy(arena) }
        // Outside any arena: malloc's memory, which free() takes back.
        let outside = try #require(bbs_xml_arena_malloc(32))
        free(outside)

        let previous = bbs_xml_arena_enter(arena)
        let first = try #require(bbs_xml_arena_malloc(10)).assumingMemoryBound(to: UInt8.self)
        for index in 0..<10 { first[index] = UInt8(index) }
        // The newest block grows in place; an older one moves, its bytes kept.
        let grown = try #require(bbs_xml_arena_realloc(first, 100)).assumingMemoryBound(to: UInt8.self)
        #expect(grown == first)
        let second = try #require(bbs_xml_arena_malloc(8))
        let moved = try #require(bbs_xml_arena_realloc(grown, 5000)).assumingMemoryBound(to: UInt8.self)
        #expect(moved != grown)
        #expect((0..<10).allSatisfy { moved[$0] == UInt8($0) })
        #expect(Int(bitPattern: second) % 16 == 0 && Int(bitPattern: moved) % 16 == 0)
        // Bigger than the first block: a new one.
        let big = try #require(bbs_xml_arena_malloc(1 << 20))
        memset(big, 0xAB, 1 << 20)
        let copy = try #require(bbs_xml_arena_strdup("地理"))
        #expect(String(cString: copy) == "地理")
        bbs_xml_arena_free(moved)  // kept until the arena goes
        bbs_xml_arena_leave(previous)
        #expect(bbs_xml_arena_reserved(arena) >= 1 << 20)
        #expect(bbs_xml_arena_spilled(arena) == 0)
    }

    /// cmark-gfm's allocator (`bbs_markdown_arena_*`) takes from the arena
    /// current for Markdown, never from libxml2's, and libxml2's never from
    /// a Markdown document's: each library gets only its own arena's memory.
    @Test func markdownAndLibxml2EachAllocateFromTheirOwnArena() throws {
        let markdown = try #require(bbs_xml_arena_create())
        defer { bbs_xml_arena_destroy(markdown) }
        let xml = try #require(bbs_xml_arena_create())
        defer { bbs_xml_arena_destroy(xml) }
        let outsideMarkdown = bbs_markdown_arena_enter(markdown)
        // calloc zeroes what it hands out, though the block came dirty from malloc.
        let dirty = try #require(bbs_markdown_arena_calloc(1, 4096)).assumingMemoryBound(to: UInt8.self)
        memset(dirty, 0xCD, 4096)
        let zeroed = try #require(bbs_markdown_arena_calloc(64, 16)).assumingMemoryBound(to: UInt8.self)
        #expect((0..<1024).allSatisfy { zeroed[$0] == 0 })
        #expect(bbs_markdown_arena_calloc(Int.max, 4) == nil)
        // With no arena of its own current, libxml2 gets malloc's memory.
        let fromMalloc = try #require(bbs_xml_arena_malloc(48))
        free(fromMalloc)
        #expect(bbs_xml_arena_reserved(xml) == 0)
        let outsideXML = bbs_xml_arena_enter(xml)
        let page = try #require(bbs_xml_arena_malloc(4096))
        let text = try #require(bbs_markdown_arena_realloc(zeroed, 2048)).assumingMemoryBound(to: UInt8.self)
        // The newest of the Markdown arena's blocks grew in place, its bytes kept.
        #expect(text == zeroed)
        #expect((0..<1024).allSatisfy { text[$0] == 0 })
        bbs_markdown_arena_free(text)  // kept until the arena goes
        bbs_xml_arena_free(page)
        bbs_xml_arena_leave(outsideXML)
        bbs_markdown_arena_leave(outsideMarkdown)
        // Outside both, cmark's allocator is malloc's.
        let plain = try #require(bbs_markdown_arena_calloc(2, 8))
        bbs_markdown_arena_free(plain)
        #expect(bbs_xml_arena_reserved(markdown) > 0 && bbs_xml_arena_reserved(xml) > 0)
        #expect(bbs_xml_arena_spilled(markdown) == 0 && bbs_xml_arena_spilled(xml) == 0)
    }

    @Test func memoryFromOutsideResizedInsideIsSaidToSpill() throws {
        let arena = try #require(bbs_xml_arena_create())
        defer { bbs_xml_arena_destroy(arena) }
        let outside = try #require(bbs_xml_arena_malloc(16))
        let previous = bbs_xml_arena_enter(arena)
        let resized = bbs_xml_arena_realloc(outside, 64)
        bbs_xml_arena_free(resized)  // not the arena's: back to malloc
        bbs_xml_arena_leave(previous)
        #expect(bbs_xml_arena_spilled(arena) == 1)
    }

    /// libxml2 keeps the thread's last error, with strings it allocated, after
    /// a parse; the document clears it before leaving its arena, so a later
    /// error on the thread never frees memory of an arena that is gone.
    @Test func noErrorOfAParseOutlivesItsArena() throws {
        for _ in 0..<3 {
            let broken = Data("<html><body><p><b>unclosed<td></zz>&bogus; <a href=x>x".utf8)
            let document = try HTMLDocument(data: broken, url: "http://x/", encoding: "UTF-8")
            #expect(document.firstElement { $0.isElement("a") }?.attribute("href") == "x")
            #expect(xmlGetLastError() == nil)
            // An XML error on the same thread replaces (frees) the last error.
            #expect(!WellFormedXML.check(Data("<a><b></a>".utf8)))
        }
    }

    @Test func documentsLiveAndGoInAnyOrder() throws {
        func page(_ index: Int) -> Data {
            let rows = (0..<200).map { "<li class=\"r\">行 \(index)-\($0) &amp; <br/>text</li>" }.joined()
            return Data("<html><body><ul class=\"list\">\(rows)</ul></body></html>".utf8)
        }
        var kept: [HTMLDocument] = []
        for index in 0..<20 {
            let document = try HTMLDocument(data: page(index), url: "http://x/", encoding: "UTF-8")
            // Some are asked XPath questions (and freed by xmlFreeDoc), some walked.
            if index % 3 == 0 {
                #expect(document.select("//li[@class='r']").count == 200)
            }
            #expect(document.firstElement { $0.isElement("li") }?.text == "行 \(index)-0 & text")
            kept.append(document)
            if index % 4 == 3 { kept.remove(at: 1) }
        }
        #expect(kept.last?.firstElement { $0.isElement("ul") }?.children.count == 200)
    }
}

@Suite struct ParserFastPathTests {
    /// The byte reading of an ASCII FROM line answers as the split of the
    /// general one does: `FROM` (or `FROM:`, in any case), an address, and
    /// whatever follows it.
    @Test(arguments: [
        "FROM 1.2.3.*", "  FROM   1.2.3.*  ", "FROM", "FROM a b", "FROMx 1.2.3.*", "xFROM 1", " FROM\t1.2.3.*",
        "FROM 地理", "FROM 1.2.3.* ", "F", "", "FROM: 1.2.3.*", "from 1.2.3.*", "FROM 1.2.3.* [北京]", "FROM now on",
        "FROM 2019 to 2020", "FROM 1.2.3.* now", "FROM 240e:3b0::*",
    ])
    func fromLineAnswersAsTheSplitDoes(line: String) {
        let fields = line.split(whereSeparator: \.isWhitespace).map(String.init)
        let note = fields.dropFirst(2).joined(separator: " ")
        let expected =
            fields.count >= 2 && ["FROM", "FROM:"].contains(fields[0]) && PostBodyReader.isAddress(fields[1])
                && (note.isEmpty || (note.first == "[" && note.last == "]"))
            ? fields.dropFirst().joined(separator: " ") : nil
        #expect(PostBodyReader.fromLine(line) == expected)
    }

    /// An invisible mark before `FROM` (a zero-width space, a byte-order
    /// mark, a direction mark) is not what the line says; one in the
    /// middle of the word is, so that line is the post's own.
    @Test func anInvisibleMarkBeforeFromIsNoPartOfTheLine() {
        for mark in ["\u{200B}", "\u{FEFF}", "\u{200E}", "\u{2060}\u{200B}"] {
            #expect(PostBodyReader.fromLine(mark + "FROM 1.2.3.*") == "1.2.3.*")
            #expect(PostBodyReader.fromLine(mark + "FROM 1.2.3.* [北京]") == "1.2.3.* [北京]")
        }
        #expect(PostBodyReader.fromLine("FR\u{200B}OM 1.2.3.*") == nil)
        #expect(PostBodyReader.fromLine("\u{200B}From 2019 to 2020") == nil)
    }

    /// What an address is: the forum's IPv4 with hidden parts, or IPv6.
    @Test func anAddressLooksLikeOne() {
        for address in [
            "101.90.125.*", "1.2.3.4", "240e:3b0::*", "*.*.*.*", "::1", "2409:8a00:1234:5678:*", "::ffff:101.90.125.*",
            "1:2:3:4:5:6:1.2.3.4",
        ] {
            #expect(PostBodyReader.isAddress(address))
        }
        for text in [
            "2019", "9:00", "10:20:30", "1a2b3c", "1.2.3", "1.2.3.4.5", "北京", "1.2.3.4567", "::", "1*.2.3.4",
            "10:20:1.2.3.4", "240e:::1", "1::2::3", "240e::3b0::*",
        ] {
            #expect(!PostBodyReader.isAddress(text), "\(text)")
        }
    }

    /// IPv6 as RFC 4291 writes it: `::` once at most, standing for at
    /// least one group; groups of one to four hex digits; eight groups in
    /// all (six before an IPv4 ending), fewer only with `::` or where a
    /// last `*` hides the rest (the forum's `240e:3b3:*`). Before, any
    /// number of groups passed, and a colon at either end.
    @Test func anIPv6AddressHasItsShape() {
        for address in [
            "1:2:3:4:5:6:7:8", "2001:db8:0:0:0:0:2:1", "2001:db8::2:1", "ace::bad", "fe80::", "240e:3b3:*",
            "2409:8a00:1234:5678:*", "240e:3b0::*", "::ffff:1.2.3.4", "64:ff9b::1.2.3.*", "1:2:3:4:5:6:7::",
            "::2:3:4:5:6:7:8", "2001:DB8::1",
        ] {
            #expect(PostBodyReader.isAddress(address), "\(address)")
        }
        for text in [
            "1234:5678:", ":1234:5678", "1234:5678:9abc", "1:2:3:4:5:6:7:8:9abc", "1:2::3:4:5:6:7:8",
            "abc:de:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "1::2:3:4:5:6:7:1.2.3.4", "12345::1", "240e:::1", ":::1",
            "1:2:3:4:5:6:7:8:", "240e:3b3:*:1", "g::1", "1:2:3:4:5:6:7:8:*", "240e::3b3:1.2.3",
        ] {
            #expect(!PostBodyReader.isAddress(text), "\(text)")
        }
        // A line whose address has no such shape is the post's own, and stays.
        #expect(PostBodyReader.fromLine("FROM 1234:5678:9abc") == nil)
        #expect(PostBodyReader.fromLine("FROM 240e:3b3:*") == "240e:3b3:*")
    }

    @Test func theEncodingDecisionSaysWhenTheBytesAreValidUTF8() {
        #expect(
            TextEncodingDetector.decide(Data("地理".utf8), contentType: "text/html; charset=utf-8") == ("UTF-8", true))
        #expect(TextEncodingDetector.decide(Data("地理".utf8), contentType: nil) == ("UTF-8", true))
        #expect(
            TextEncodingDetector.decide(Data("abc".utf8), contentType: "text/html; charset=GBK") == ("GB18030", false))
        // Mostly UTF-8 (one stray byte): UTF-8, but not valid, so repaired.
        let stray = Data("地理地理地理地理地理地理地理地理地理".utf8) + Data([0xFF])
        #expect(TextEncodingDetector.decide(stray, contentType: "text/html; charset=utf-8") == ("UTF-8", false))
        #expect(TextEncodingDetector.decide(Data([0xB5, 0xD8, 0xC0, 0xED]), contentType: nil) == ("GB18030", false))
    }
}
