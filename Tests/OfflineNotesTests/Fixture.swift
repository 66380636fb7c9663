import OfflineNotesTesting

/// The shared fixture (OfflineNotesTesting), under the name every file of these tests uses.
typealias Fixture = OfflineNotesTesting.Fixture
