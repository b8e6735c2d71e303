/// Shared helpers for Coffer tests.
public enum CofferTestSupport {}
