internal import Foundation
internal import TexPipeStages

/// Why a file the plan needs could not be used.
enum HeaderProblem: Error {
    case unreadable
    case corrupt(String)
    case font(String)
}

/// A stage resource that failed its plan-time check: a manifest error at the stage's JSON path.
struct ResourceProblem: Error {
    var label: String
    var path: String
    var problem: HeaderProblem

    func message(stage: String) -> String {
        switch problem {
        case .unreadable: "\(stage): \(label): cannot read \(Planner.display(path))"
        case .corrupt(let why): "\(stage): \(label): \(Planner.display(path)): \(why)"
        case .font(let why): "\(label): \(why)"
        }
    }
}

/// The planner's own wording, in one place (STYLE 10); manifest wording is `Say`.
enum PlanMessage {
    /// A stage resource whose size must be the image's there, and is not: fails that job.
    static func sizeMismatch(
        label: String, path: String, size: (Int, Int), image: (Int, Int), hint: String
    ) -> StageError {
        StageError("\(label) \(path) is \(size.0)×\(size.1) but the image is \(image.0)×\(image.1)\(hint)")
    }
}
