// Planted mistake for `scripts/check-app-sdk --self-test`: compiled into the app, it must fail.
// CoreBluetooth's write to a characteristic needs its write type (without it, only the
// descriptor overload is left).
// expect: cannot convert value of type 'CBCharacteristic' to expected argument type 'CBDescriptor'
import CoreBluetooth
import Foundation

func plantedWrite(_ peripheral: CBPeripheral, _ characteristic: CBCharacteristic) {
    peripheral.writeValue(Data([1]), for: characteristic)
}
