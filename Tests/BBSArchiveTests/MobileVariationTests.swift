import Foundation
import Testing

@testable import BBSArchive

/// Mobile thread pages as real pages vary them: a floor label in bold or in
/// a colour, the time before the floor, an author link in a colour, `FROM`
/// lines with a place or a colon, another wording of the image link. Each
/// variant reads as the plain page does; before, each misread or left out
/// part of a post with no warning, or with one about something else (found
/// by QA that varied real captures as real pages vary).
@Suite struct MobileVariationTests {
    /// The plain reply: floor 11, bob, a time, two lines, an edit note, FROM.
    static let plain =
        MobileThreadPageParserTests.head + "<ul class=\"list sec\"><li class=\"f\">主题:标题</li>"
        + MobileThreadPageParserTests.post(
            floor: "11楼", name: "a11", user: "bob", time: "2026-07-31 15:22:57",
            body: "第一行<br />第二行<br />修改:bob FROM 1.2.3.*<br />FROM 1.2.3.*")
        + "</ul>" + MobileThreadPageParserTests.tail

    static let variants: [(String, String, String)] = [
        ("the floor in bold", "<a class=\"plant\">11楼</a>", "<b><a class=\"plant\">11楼</a></b>"),
        (
            "the floor in a colour", "<a class=\"plant\">11楼</a>",
            "<font color=\"red\"><a class=\"plant\">11楼</a></font>"
        ),
        ("the floor a span", "<a class=\"plant\">11楼</a>", "<span class=\"plant\">11楼</span>"),
        (
            "the time before the floor",
            "<a class=\"plant\">11楼</a>|<a href=\"/user/query/bob\">bob</a>|<a class=\"plant\">2026-07-31 15:22:57</a>",
            "<a class=\"plant\">2026-07-31 15:22:57</a>|<a href=\"/user/query/bob\">bob</a>|<a class=\"plant\">11楼</a>"
        ),
        (
            "the author in a colour", "<a href=\"/user/query/bob\">bob</a>",
            "<font color=\"blue\"><a href=\"/user/query/bob\">bob</a></font>"
        ),
        ("FROM with a colon", "<br />FROM 1.2.3.*", "<br />FROM: 1.2.3.*"),
        (
            "the edit note after FROM", "<br />修改:bob FROM 1.2.3.*<br />FROM 1.2.3.*",
            "<br />FROM 1.2.3.*<br />修改:bob FROM 1.2.3.*"
        ),
    ]

    @Test(arguments: variants)
    func aVariedReplyReadsAsThePlainOne(name: String, original: String, variant: String) throws {
        let html = Self.plain.replacingOccurrences(of: original, with: variant)
        try #require(html != Self.plain, "the variant \(name) changes nothing")
        let post = try #require(try MobileThreadPageParserTests().parse(html).posts.first)
        #expect(post.warning == nil)
        #expect(post.floor == 11)
        #expect(post.author == "bob")
        #expect(post.postedAt == Fixtures.beijing(2026, 7, 31, 15, 22, 57))
        #expect(post.body == "第一行\n第二行")
        #expect(post.editedBy == "bob")
        #expect(post.ip == "1.2.3.*")
    }

    /// A place after the address stays with it, not in the body.
    @Test func aFromLineWithAPlaceKeepsIt() throws {
        let html = Self.plain.replacingOccurrences(of: "<br />FROM 1.2.3.*", with: "<br />FROM 1.2.3.* [北京]")
        let post = try #require(try MobileThreadPageParserTests().parse(html).posts.first)
        #expect(post.ip == "1.2.3.* [北京]")
        #expect(post.body == "第一行\n第二行")
    }

    /// A line of the post's own that looks like an edit note but names no
    /// address stays in the body.
    @Test func aLineOfTheReplysOwnIsNoEditNote() throws {
        let html = Self.plain.replacingOccurrences(of: "修改:bob FROM 1.2.3.*", with: "修改:我 FROM 你")
        let post = try #require(try MobileThreadPageParserTests().parse(html).posts.first)
        #expect(post.editedBy == nil)
        #expect(post.body == "第一行\n第二行\n修改:我 FROM 你")
    }

    /// A last line of the reply's own that starts with From is no FROM
    /// line, with the forum's FROM line there or not (it was taken for the
    /// address, `2019 to 2020`, and left the body).
    @Test(arguments: ["From 2019 to 2020", "from 9:00 to 17:00", "FROM 2019"])
    func aLineOfTheReplysOwnIsNoFromLine(line: String) throws {
        let without = Self.plain.replacingOccurrences(
            of: "<br />修改:bob FROM 1.2.3.*<br />FROM 1.2.3.*", with: "<br />\(line)")
        let post = try #require(try MobileThreadPageParserTests().parse(without).posts.first)
        #expect(post.ip == nil)
        #expect(post.body == "第一行\n第二行\n\(line)")
        let edited = Self.plain.replacingOccurrences(of: "修改:bob FROM 1.2.3.*", with: "修改:我 \(line)")
        let reply = try #require(try MobileThreadPageParserTests().parse(edited).posts.first)
        #expect(reply.editedBy == nil)
        #expect(reply.ip == "1.2.3.*")
        #expect(reply.body == "第一行\n第二行\n修改:我 \(line)")
    }

    /// The image link, worded otherwise or after its thumbnail, is one image
    /// with its size, not an image and a file (or two images).
    @Test(arguments: [
        "<a href=\"/att/Test/700/1095\">单击查看原图(2.0KB)</a><br /><img src=\"/att/Test/700/1095/middle\" alt=\"map.png\" />",
        "<img src=\"/att/Test/700/1095/middle\" alt=\"map.png\" /><br /><a href=\"/att/Test/700/1095\">单击此查看原图(2.0KB)</a>",
    ])
    func anImageIsOneAttachment(markup: String) throws {
        let html = Self.plain.replacingOccurrences(of: "第二行<br />", with: "第二行<br />\(markup)<br />")
        let post = try #require(try MobileThreadPageParserTests().parse(html).posts.first)
        #expect(
            post.attachments == [
                Attachment(name: "map.png", url: "http://127.0.0.1:9/att/Test/700/1095", kind: .image, size: "2.0KB")
            ])
    }
}
