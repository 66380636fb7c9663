// Backfill: UIKit API newer than an SDK older than iOS 18.0. scripts/check-app-sdk compiles this
// file into a module (SDKBackfillUIKit) imported implicitly into App/'s compile, only when the
// given SDK is older than 18.0; it is never built into the app. Declarations only.
import UIKit

extension UIImpactFeedbackGenerator {
    /// https://developer.apple.com/documentation/uikit/uiimpactfeedbackgenerator/init(style:view:)
    @available(iOS 17.5, *)
    public convenience init(style: UIImpactFeedbackGenerator.FeedbackStyle, view: UIView) { fatalError("declaration only") }
}
