import Foundation
import ObjectStorage
import Testing

/// The XML documents S3 and STS answer with.
struct ResponseParsingTests {
    @Test func listingPageWithURLEncodedKeys() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Name>b</Name><Prefix>a%2F</Prefix><KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys>
              <EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>
              <Contents><Key>a/with+space%2Bplus%26amp.ndjson</Key><LastModified>2024-06-01T12:00:00.000Z</LastModified>
                <ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>1234</Size><StorageClass>STANDARD</StorageClass></Contents>
              <Contents><Key>a/%C3%BC%E2%9C%93</Key><LastModified>2024-06-01T12:00:01Z</LastModified>
                <ETag>"abc-2"</ETag><Size>0</Size></Contents>
              <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
            </ListBucketResult>
            """
        let page = try ListPage(parsing: Data(xml.utf8))
        #expect(page.objects.map(\.key) == ["a/with space+plus&amp.ndjson", "a/ü✓"])
        #expect(page.objects.map(\.size) == [1234, 0])
        #expect(page.objects.map(\.etag) == ["\"9b2cf535f27731c974343645a3985328\"", "\"abc-2\""])
        #expect(page.objects[0].lastModified == Date(timeIntervalSince1970: 1_717_243_200))
        #expect(page.objects[1].lastModified == Date(timeIntervalSince1970: 1_717_243_201))
        #expect(page.nextContinuationToken == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
    }

    @Test func lastPageAndPlainKeys() throws {
        let xml =
            "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>a+b &amp; c</Key><Size>1</Size><ETag>\"e\"</ETag></Contents></ListBucketResult>"
        let page = try ListPage(parsing: Data(xml.utf8))
        #expect(page.objects.map(\.key) == ["a+b & c"])
        #expect(page.nextContinuationToken == nil)
    }

    @Test(arguments: ["<Error><Code>AccessDenied</Code></Error>", "not xml", "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>"])
    func rejectsWhatIsNotAListing(_ xml: String) {
        #expect(throws: S3Error.self) { _ = try ListPage(parsing: Data(xml.utf8)) }
    }

    @Test func errorDocuments() {
        let s3 = S3ErrorBody(
            parsing: Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint.</Message><Region>eu-west-1</Region><RequestId>1</RequestId></Error>
                """.utf8))
        #expect(s3.code == "PermanentRedirect")
        #expect(s3.region == "eu-west-1")
        let sts = S3ErrorBody(
            parsing: Data(
                """
                <ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>InvalidIdentityToken</Code><Message>No OpenIDConnect provider found</Message></Error><RequestId>x</RequestId></ErrorResponse>
                """.utf8))
        #expect(sts.code == "InvalidIdentityToken")
        #expect(sts.message == "No OpenIDConnect provider found")
        #expect(S3ErrorBody(parsing: Data()) == S3ErrorBody())
    }

    @Test func stsCredentials() throws {
        let xml = """
            <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
              <AssumeRoleWithWebIdentityResult>
                <SubjectFromWebIdentityToken>system:serviceaccount:ns:sa</SubjectFromWebIdentityToken>
                <Credentials>
                  <SessionToken>FwoGZXIvYXdzEExample</SessionToken>
                  <SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY</SecretAccessKey>
                  <Expiration>2024-06-01T13:00:00Z</Expiration>
                  <AccessKeyId>ASIAIOSFODNN7EXAMPLE</AccessKeyId>
                </Credentials>
              </AssumeRoleWithWebIdentityResult>
            </AssumeRoleWithWebIdentityResponse>
            """
        let credentials = try #require(STSResponse.credentials(parsing: Data(xml.utf8)))
        #expect(
            credentials
                == AWSCredentials(
                    accessKeyID: "ASIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
                    sessionToken: "FwoGZXIvYXdzEExample", expiration: Date(timeIntervalSince1970: 1_717_246_800)))
        #expect(STSResponse.credentials(parsing: Data("<ErrorResponse/>".utf8)) == nil)
    }

    @Test func profileFileSections() {
        let file = ProfileFile(parsing: "[profile a]\nregion=x\n[a]\nregion = y\n[profile  b ]\n Region = z \n[default]\nk=v", kind: .config)
        #expect(file.profile("a") == ["region": "x"])
        #expect(file.profile("b") == ["region": "z"])
        #expect(file.profile("default") == ["k": "v"])
        #expect(ProfileFile(parsing: "[profile a]\nk=v", kind: .credentials).profile("a") == nil)
    }
}
