/// The list of suites the harness runs, in order: the C baseline first, so later suites can be compared with it.
enum SuiteRegistry {
    /// Every suite, baseline first.
    static func suites() -> [any BenchmarkSuite] {
        [
            JSONCodingSuite(),
            BaselineSuite(),
        ]
    }
}
