// Planted mistake for `scripts/check-app-sdk --self-test`: compiled into the app, it must fail.
// A constant read before it is set: reported by definite initialization, a SIL pass.
// expect: used before being initialized
func plantedUninitialized(_ flag: Bool) -> Int {
    let value: Int
    if flag { value = 1 }
    return value
}
