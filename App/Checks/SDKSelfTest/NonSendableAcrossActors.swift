// Planted mistake for `scripts/check-app-sdk --self-test`: compiled into the app, it must fail.
// A non-Sendable object is sent to an actor and then used here again: a data race that only the
// region-isolation pass (SIL, not type-checking) reports.
// expect: risks causing data races
final class PlantedCounter {
    var count = 0
}

actor PlantedSink {
    func take(_ counter: PlantedCounter) { counter.count += 1 }
}

func plantedRace(_ sink: PlantedSink) async {
    let counter = PlantedCounter()
    await sink.take(counter)
    counter.count += 1
}
