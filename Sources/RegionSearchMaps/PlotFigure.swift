/// A figure of small plots sharing an x axis and a set of series: what an experiment's results
/// look like as a picture (``PlotRenderer`` draws it).
///
/// `lines`: x is numeric (a parameter's values), one line per series. `bars`: x is a list of
/// groups (input sets), one bar per series in each group, side by side (methods compared).
public struct PlotFigure: Sendable {
    public enum Kind: Sendable {
        case lines
        case bars
    }

    /// One plot: a metric over the x values, per series.
    public struct Panel: Sendable {
        public var title: String
        /// The y range; nil = from 0 to a round number above the largest value.
        public var yRange: ClosedRange<Double>?
        /// `values[series][x]`; nil where the combination has no value (not scored).
        public var values: [[Double?]]

        public init(title: String, yRange: ClosedRange<Double>?, values: [[Double?]]) {
            self.title = title
            self.yRange = yRange
            self.values = values
        }
    }

    public var title: String
    public var subtitle: String
    public var kind: Kind
    public var xLabel: String
    /// Labels of the x values (lines) or groups (bars).
    public var xLabels: [String]
    /// Positions of the x values for `lines` (nil = evenly spaced).
    public var xPositions: [Double]?
    public var seriesNames: [String]
    public var panels: [Panel]

    public init(
        title: String, subtitle: String, kind: Kind, xLabel: String, xLabels: [String], xPositions: [Double]?,
        seriesNames: [String], panels: [Panel]
    ) {
        self.title = title
        self.subtitle = subtitle
        self.kind = kind
        self.xLabel = xLabel
        self.xLabels = xLabels
        self.xPositions = xPositions
        self.seriesNames = seriesNames
        self.panels = panels
    }
}
