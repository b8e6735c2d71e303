/// The list of suites the harness runs, in order; the C baseline comes before every suite compared with it.
enum SuiteRegistry {
    /// Every suite, in run order.
    static func suites() -> [any BenchmarkSuite] {
        [
            JSONCodingSuite(),
            CodecSuite(),
            ChainSuite(),
            PreferencesSuite(),
            BaselineSuite(),
            CofferSuite(),
            CofferRawSuite(),
            CofferBinarySuite(),
            CofferExtensionSuite(),
            CofferRelationshipSuite(),
            CofferViewSuite(),
            SearchResultsSuite(),
            CofferActionSuite(),
            CofferProcessSuite(),
            CofferCloudSuite(),
            BaselineScaleSuite(),
            CofferScaleSuite(),
        ]
    }
}
