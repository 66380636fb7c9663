import SwiftUI

#if canImport(AVFoundation) && canImport(UIKit)
import AVFoundation
import UIKit

/// The live camera reading QR codes: every code the camera sees goes to `onText` (the
/// `ScanAssembler`, which collects the frames of a multi-frame code in any order and ignores
/// the repeats), with a light haptic tap the first time each frame is read, and the torch
/// following `isTorchOn`.
///
/// AVFoundation (`AVCaptureSession` + `AVCaptureMetadataOutput` for `.qr`) rather than
/// VisionKit's `DataScannerViewController`: the data scanner has no torch control (the screen
/// has a torch toggle, and codes on a dim screen in a dark room need it), it hands over
/// recognised items with a highlight UI of its own we would have to hide, and the metadata
/// output reports every code in view on every frame — what an animated, multi-frame code needs.
struct CameraScannerView: UIViewControllerRepresentable {
    @Binding var isTorchOn: Bool
    let onText: @MainActor (String) -> Void

    init(isTorchOn: Binding<Bool>, onText: @escaping @MainActor (String) -> Void) {
        _isTorchOn = isTorchOn
        self.onText = onText
    }

    func makeUIViewController(context: Context) -> ScannerViewController {
        let controller = ScannerViewController()
        controller.onText = onText
        return controller
    }

    func updateUIViewController(_ controller: ScannerViewController, context: Context) {
        controller.onText = onText
        controller.setTorch(isTorchOn)
    }

    static func dismantleUIViewController(_ controller: ScannerViewController, coordinator: ()) {
        controller.stopCamera()
    }
}

/// Hosts the preview and runs the capture session. Asks for camera access the first time;
/// when it is refused, says where to turn it on (the scan screen's "Enter code manually" still
/// works).
final class ScannerViewController: UIViewController {
    var onText: @MainActor (String) -> Void = { _ in }

    private let capture = CaptureSession()
    private var previewLayer: AVCaptureVideoPreviewLayer?
    /// Frames already tapped for (the camera sees each frame many times a second).
    private var seen: Set<String> = []
    /// Made in `viewDidLoad`: the generator is tied to the view it plays for (iOS 17.5+).
    private var haptics: UIImpactFeedbackGenerator?
    private var torchOn = false

    override func viewDidLoad() {
        super.viewDidLoad()
        view.backgroundColor = .black
        haptics = UIImpactFeedbackGenerator(style: .light, view: view)
        Task { await startWhenAllowed() }
    }

    override func viewDidLayoutSubviews() {
        super.viewDidLayoutSubviews()
        previewLayer?.frame = view.bounds
    }

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        // Back on screen after another sheet or tab covered it: the camera runs again.
        if previewLayer != nil { capture.start(torch: torchOn) }
    }

    override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        stopCamera()
    }

    /// The torch on or off (ignored by devices without one, like some iPads).
    func setTorch(_ on: Bool) {
        guard on != torchOn else { return }
        torchOn = on
        capture.setTorch(on)
    }

    func stopCamera() { capture.stop() }

    private func startWhenAllowed() async {
        switch AVCaptureDevice.authorizationStatus(for: .video) {
        case .authorized:
            break
        case .notDetermined:
            guard await AVCaptureDevice.requestAccess(for: .video) else { return showMessage(Self.deniedMessage) }
        default:
            return showMessage(Self.deniedMessage)
        }
        let deliver: @MainActor ([String]) -> Void = { [weak self] texts in self?.received(texts) }
        guard let session = capture.configure(onCodes: deliver) else {
            return showMessage("This device has no camera the app can use. Enter the code manually instead.")
        }
        let layer = AVCaptureVideoPreviewLayer(session: session)
        layer.videoGravity = .resizeAspectFill
        layer.frame = view.bounds
        view.layer.addSublayer(layer)
        previewLayer = layer
        haptics?.prepare()
        capture.start(torch: torchOn)
    }

    private func received(_ texts: [String]) {
        for text in texts {
            if seen.insert(text).inserted {
                haptics?.impactOccurred()
                haptics?.prepare()
            }
            onText(text)
        }
    }

    private static let deniedMessage =
        "Camera access is off. Turn it on in Settings → Privacy & Security → Camera → Offline Wallet, or enter the code manually."

    private func showMessage(_ text: String) {
        let label = UILabel()
        label.text = text
        label.textColor = .white
        label.numberOfLines = 0
        label.textAlignment = .center
        label.font = .preferredFont(forTextStyle: .body)
        label.adjustsFontForContentSizeCategory = true
        label.translatesAutoresizingMaskIntoConstraints = false
        view.addSubview(label)
        NSLayoutConstraint.activate([
            label.leadingAnchor.constraint(equalTo: view.layoutMarginsGuide.leadingAnchor),
            label.trailingAnchor.constraint(equalTo: view.layoutMarginsGuide.trailingAnchor),
            label.centerYAnchor.constraint(equalTo: view.centerYAnchor),
        ])
    }
}

/// The capture session and the camera, used only on `queue` (starting and stopping block for
/// a while, and must not run on the main thread). The metadata delegate is called on the main
/// queue, where the texts go straight to the screen.
///
/// `@unchecked Sendable`: every mutable use of the session and device happens on `queue`; the
/// preview layer reads the session from the main thread, which AVFoundation allows.
private final class CaptureSession: NSObject, AVCaptureMetadataOutputObjectsDelegate, @unchecked Sendable {
    private let session = AVCaptureSession()
    private let queue = DispatchQueue(label: "org.offlinewallet.camera")
    private var device: AVCaptureDevice?
    private var onCodes: @MainActor ([String]) -> Void = { _ in }

    /// Adds the back camera and a QR metadata output; nil when there is no usable camera.
    /// Called once, on the main actor, before `start`.
    @MainActor
    func configure(onCodes: @escaping @MainActor ([String]) -> Void) -> AVCaptureSession? {
        self.onCodes = onCodes
        guard
            let camera = AVCaptureDevice.default(.builtInWideAngleCamera, for: .video, position: .back)
                ?? AVCaptureDevice.default(for: .video),
            let input = try? AVCaptureDeviceInput(device: camera)
        else { return nil }
        let output = AVCaptureMetadataOutput()
        session.beginConfiguration()
        defer { session.commitConfiguration() }
        guard session.canAddInput(input), session.canAddOutput(output) else { return nil }
        session.addInput(input)
        session.addOutput(output)
        // The types can be set only once the output is in the session.
        output.setMetadataObjectsDelegate(self, queue: .main)
        output.metadataObjectTypes = [.qr]
        device = camera
        return session
    }

    func start(torch: Bool) {
        queue.async { [self] in
            if !session.isRunning { session.startRunning() }
            applyTorch(torch)
        }
    }

    func stop() {
        queue.async { [self] in
            if session.isRunning { session.stopRunning() }
        }
    }

    func setTorch(_ on: Bool) {
        queue.async { [self] in applyTorch(on) }
    }

    /// On `queue`. The torch works only while the session runs.
    private func applyTorch(_ on: Bool) {
        guard let device, device.hasTorch, session.isRunning else { return }
        do {
            try device.lockForConfiguration()
            device.torchMode = on ? .on : .off
            device.unlockForConfiguration()
        } catch {
            // Another app holds the camera's configuration: the toggle simply has no effect.
        }
    }

    /// On the main queue (set in `configure`): only the texts (Sendable) leave this method.
    nonisolated func metadataOutput(
        _ output: AVCaptureMetadataOutput, didOutput metadataObjects: [AVMetadataObject], from connection: AVCaptureConnection
    ) {
        let texts = metadataObjects.compactMap { ($0 as? AVMetadataMachineReadableCodeObject)?.stringValue }
        guard !texts.isEmpty else { return }
        MainActor.assumeIsolated { onCodes(texts) }
    }
}

#else

/// Stand-in where AVFoundation or UIKit is missing (Linux's `scripts/check-app`): same
/// signature, so the scan screen type-checks; never shipped. The simulator has AVFoundation
/// but no camera, and says so through the real view.
struct CameraScannerView: View {
    @Binding var isTorchOn: Bool
    let onText: @MainActor (String) -> Void

    init(isTorchOn: Binding<Bool>, onText: @escaping @MainActor (String) -> Void) {
        _isTorchOn = isTorchOn
        self.onText = onText
    }

    var body: some View {
        Text("Camera unavailable")
    }
}
#endif
