import XCTest

@testable import RegionSearchCore

/// Issue 21, finding 11: every password of a PG: connection string is masked, in each form libpq
/// and GDAL accept.
final class ConnectionSecretsTests: XCTestCase {
    func testEveryPasswordFormIsMasked() {
        let cases: [(String, String)] = [
            ("PG:host=db password=s3cret dbname=gis", "PG:host=db password=*** dbname=gis"),
            ("PG:password='a b\\' c' dbname=gis", "PG:password=*** dbname=gis"),
            ("PG:host=db password = s3cret user=u", "PG:host=db password = *** user=u"),
            ("PG:password=one password=two", "PG:password=*** password=***"),
            ("PG:dbname=gis PASSWORD=x", "PG:dbname=gis PASSWORD=***"),
            ("pg:dbname=gis password=x", "pg:dbname=gis password=***"),
            (
                "PG:postgresql://u:s3cret@db:5432/gis?sslmode=require",
                "PG:postgresql://u:***@db:5432/gis?sslmode=require"
            ),
            ("PG:postgres://u@db/gis?password=s3cret&x=1", "PG:postgres://u@db/gis?password=***&x=1"),
            ("PG:dbname=gis user=u", "PG:dbname=gis user=u"),
            ("/data/password=x.gpkg", "/data/password=x.gpkg"),
        ]
        for (given, expected) in cases {
            XCTAssertEqual(ConnectionSecrets.redacted(given), expected, given)
        }
    }
}
