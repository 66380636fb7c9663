// Planted mistake for `scripts/check-app-sdk --self-test`: compiled into the app, it must fail.
// A capture session takes an input made from the device, not the (optional) device itself.
// expect: cannot convert value of type 'AVCaptureDevice' to expected argument type 'AVCaptureInput'
import AVFoundation

func plantedCamera(_ session: AVCaptureSession) {
    session.addInput(AVCaptureDevice.default(for: .video))
}
