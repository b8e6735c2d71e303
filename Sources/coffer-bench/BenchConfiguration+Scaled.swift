extension BenchConfiguration {
    /// The same preset and key kind for a run of `recordCount` records (the recommended cache follows N).
    func scaled(to recordCount: Int) -> BenchConfiguration {
        BenchConfiguration(
            preset: preset, keyKind: keyKind, recordCount: recordCount,
            smoke: kdfIterations == Self.smokeKDFIterations)
    }
}
