// The SVG bar chart keychain-bench writes beside its JSON.
import Foundation

/// Writes a bar chart of `results` to `file`: operations per second (log scale) per operation,
/// per implementation (the C baselines, raw and the DSL), per store size.
func writeChart(of results: [SizeResult], to file: URL) throws {
  var svg: [String] = []
  let barWidth = 14.0
  let plotted = ["C", "C same-work", "raw", "DSL"]
  let groupWidth = barWidth * Double(plotted.count) + 16
  let chartHeight = 220.0
  let operations = Operation.allCases
  let width = 80 + Double(results.count * operations.count) * groupWidth + Double(results.count) * 30 + 170
  svg.append(
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"320\" font-family=\"sans-serif\" font-size=\"10\">"
  )
  svg.append(
    "<text x=\"10\" y=\"16\" font-size=\"13\">keychain-bench: ops/s (log scale) — C baselines, raw Security, Keychain DSL</text>"
  )
  let colors = ["C": "#777777", "C same-work": "#bbbbbb", "raw": "#1f77b4", "DSL": "#ff7f0e"]
  let legendNames = [
    "C": "C baseline (minimal)", "C same-work": "C baseline (same work)", "raw": "raw Security API",
    "DSL": "Keychain DSL",
  ]
  // The log scale runs from 1 to the next power of ten above the fastest operation.
  let fastest = results.flatMap { $0.samples.values.flatMap { $0.values.map(\.medianOpsPerSecond) } }.max() ?? 10
  let maximum = ceil(log10(fastest))
  // The y axis: a line, a tick and a label per power of ten, and the quantity it shows.
  svg.append("<line x1=\"52\" y1=\"40\" x2=\"52\" y2=\"\(40 + chartHeight)\" stroke=\"#333333\"/>")
  for power in 0...Int(maximum) {
    let y = 40 + chartHeight - Double(power) / maximum * chartHeight
    let label = ["1", "10", "100", "1k", "10k", "100k", "1M", "10M", "100M"][min(power, 8)]
    svg.append("<line x1=\"48\" y1=\"\(y)\" x2=\"\(width - 160)\" y2=\"\(y)\" stroke=\"#dddddd\"/>")
    svg.append("<text x=\"44\" y=\"\(y + 3)\" text-anchor=\"end\">\(label)</text>")
  }
  svg.append(
    "<text x=\"14\" y=\"\(40 + chartHeight / 2)\" transform=\"rotate(-90 14 \(40 + chartHeight / 2))\" "
      + "text-anchor=\"middle\">operations per second (log scale)</text>")
  var x = 60.0
  for result in results {
    svg.append("<text x=\"\(x)\" y=\"300\" font-size=\"11\">\(result.size) items</text>")
    for operation in operations {
      for (index, name) in plotted.enumerated() {
        let value = result.samples[name]![operation]!.medianOpsPerSecond
        let height = max(1, log10(max(value, 1)) / maximum * chartHeight)
        let barX = x + Double(index) * barWidth
        svg.append(
          "<rect x=\"\(barX)\" y=\"\(40 + chartHeight - height)\" width=\"\(barWidth - 2)\" height=\"\(height)\" fill=\"\(colors[name]!)\"><title>\(name) \(operation.rawValue): \(Int(value)) ops/s</title></rect>"
        )
      }
      svg.append(
        "<text x=\"\(x)\" y=\"\(55 + chartHeight)\" transform=\"rotate(30 \(x) \(55 + chartHeight))\">\(operation.rawValue)</text>"
      )
      x += groupWidth
    }
    x += 30
  }
  for (index, name) in plotted.enumerated() {
    svg.append(
      "<rect x=\"\(width - 150)\" y=\"\(30 + Double(index) * 14)\" width=\"10\" height=\"10\" fill=\"\(colors[name]!)\"/>"
    )
    svg.append("<text x=\"\(width - 136)\" y=\"\(39 + Double(index) * 14)\">\(legendNames[name]!)</text>")
  }
  svg.append("</svg>")
  try svg.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
}
