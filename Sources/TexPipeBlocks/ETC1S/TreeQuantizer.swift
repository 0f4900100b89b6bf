internal import TexPipePixels

/// Tree-structured vector quantisation: the cluster with the largest squared error is split in
/// two (2-means from its two mutually farthest members) until there are `count` clusters or none
/// can split. Deterministic: no random start, ties broken by index. Vectors are SIMD lanes (unused
/// lanes zero), so each distance is a few vector instructions.
///
/// The vectors are copied and kept ordered by cluster, so each cluster is one contiguous range
/// that a split partitions in place. Splits are computed ahead for the eight largest clusters at a
/// time, on the lent cores; a cluster's split depends only on its own members, so whichever of
/// them the greedy order then takes, and when, the clusters are the same at any core count.
enum TreeQuantizer {
    struct Result<V: FloatLanes> where V: FloatLanes {
        /// Each vector's cluster.
        var assignment: [UInt16]
        var centroids: [V]
        /// The clusters in the tree's order (by their first vector): siblings side by side.
        var treeOrder: [Int]
        var count: Int { centroids.count }

        /// For every cluster, the `size` others whose centroids are nearest its own (nearer first,
        /// the lower index on ties) among the `window` on either side of it in the tree's order.
        /// Each split leaves its two halves side by side there, so a cluster's neighbours in that
        /// order are its siblings and cousins: on a 2048² texture's 16,128 selector clusters the
        /// 8 nearest of 128 such candidates gave 0.4 dB more than the 8 nearest among 48
        /// neighbours by the sum of components (this table's earlier search), and within
        /// 0.08 dB of the exact 8 nearest — which in 16 dimensions cost comparing nearly every
        /// pair (2.3 s there). Bands of clusters on the cores `rows` lends; each list depends only
        /// on the centroids and the tree.
        func neighbourTable(_ size: Int, window: Int = 64, rows: any RowScheduler = SerialRows()) -> [[Int]] {
            let n = count
            let k = min(size, n - 1)
            guard k > 0 else { return [[Int]](repeating: [], count: n) }
            var position = [Int](repeating: 0, count: n)
            for (p, c) in treeOrder.enumerated() { position[c] = p }
            var table = [[Int]](repeating: [], count: n)
            table.withUnsafeMutableBufferPointer { out in
                rows.forEachBand(rows: n, pixelsPerRow: 2 * window) { range in
                    var nearest = Nearest(k)
                    for c in range {
                        nearest.clear()
                        let p = position[c]
                        for q in max(0, p - window)..<min(n, p + window + 1) where q != p {
                            let other = treeOrder[q]
                            nearest.offer(TreeQuantizer.distance(centroids[c], centroids[other]), other)
                        }
                        out[c] = nearest.list
                    }
                }
            }
            return table
        }
    }

    /// The `capacity` nearest offered so far, by distance then index.
    struct Nearest {
        var distances: [Float]
        var indices: [Int]
        var count = 0
        let capacity: Int

        init(_ capacity: Int) {
            self.capacity = capacity
            distances = [Float](repeating: 0, count: capacity)
            indices = [Int](repeating: 0, count: capacity)
        }

        mutating func clear() { count = 0 }

        var list: [Int] { Array(indices[0..<count]) }

        @inline(__always) mutating func offer(_ d: Float, _ i: Int) {
            if count == capacity {
                let last = capacity - 1
                guard d < distances[last] || (d == distances[last] && i < indices[last]) else { return }
            } else {
                count += 1
            }
            var at = count - 1
            while at > 0 && (distances[at - 1] > d || (distances[at - 1] == d && indices[at - 1] > i)) {
                distances[at] = distances[at - 1]
                indices[at] = indices[at - 1]
                at -= 1
            }
            distances[at] = d
            indices[at] = i
        }
    }

    /// A cluster: a range of the ordered vectors, its centroid and squared error, and its split
    /// once computed (the range then already partitioned at `split.mid`).
    struct Cluster<V: FloatLanes> where V: FloatLanes {
        var range: Range<Int>
        var centroid: V
        var error: Float
        var splittable: Bool
        var split: Split<V>?
    }

    struct Split<V: FloatLanes> where V: FloatLanes {
        var mid: Int
        var a: V
        var b: V
        var errorA: Float
        var errorB: Float
    }

    /// Cluster indices, the largest error first (the lower index on ties): a binary heap.
    struct Queue {
        var heap: [(error: Float, index: Int)] = []

        var first: (error: Float, index: Int)? { heap.first }

        @inline(__always) static func before(_ a: (error: Float, index: Int), _ b: (error: Float, index: Int)) -> Bool {
            a.error > b.error || (a.error == b.error && a.index < b.index)
        }

        mutating func push(_ error: Float, _ index: Int) {
            heap.append((error, index))
            var i = heap.count - 1
            while i > 0 && Self.before(heap[i], heap[(i - 1) / 2]) {
                heap.swapAt(i, (i - 1) / 2)
                i = (i - 1) / 2
            }
        }

        mutating func pop() -> (error: Float, index: Int)? {
            guard let top = heap.first else { return nil }
            let last = heap.removeLast()
            guard !heap.isEmpty else { return top }
            heap[0] = last
            var i = 0
            while true {
                var m = i
                for c in [2 * i + 1, 2 * i + 2] where c < heap.count && Self.before(heap[c], heap[m]) { m = c }
                if m == i { break }
                heap.swapAt(i, m)
                i = m
            }
            return top
        }
    }

    /// How many clusters' splits are computed at once.
    static let ahead = 8
    /// The members a split sums at a time; a cluster of more than `lone` members is split alone,
    /// its chunks across the cores.
    static let chunk = 4096
    static let lone = 32768

    @inline(__always) static func distance<V: FloatLanes>(_ a: V, _ b: V) -> Float where V: FloatLanes {
        let x = a - b
        return (x * x).lanesSum
    }

    /// The vectors are taken (`consuming`): the caller's last use of them lends their memory.
    ///
    /// `weights`, when given, weigh each vector in the centroids and the squared errors (a
    /// weighted k-means): a cluster's error is what its members lose, each by its weight, so the
    /// splits go where the weighted error is. Without them every vector weighs 1, and the sums are
    /// the unweighted ones exactly (a product by 1 is exact).
    static func clusters<V: FloatLanes>(
        _ vectors: consuming [V], weights: consuming [Float]? = nil, count: Int, iterations: Int,
        rows: any RowScheduler
    ) -> Result<V> {
        var work = consume vectors
        let n = work.count
        var mass = (consume weights) ?? [Float](repeating: 1, count: n)
        precondition(mass.count == n, "one weight per vector")
        var index = (0..<Int32(n)).map { $0 }
        var side = [Bool](repeating: false, count: n)
        var sum = V()
        var squares: Double = 0
        var total: Double = 0
        for (x, m) in zip(work, mass) {
            sum += x * m
            squares += Double(m * (x * x).lanesSum)
            total += Double(m)
        }
        let c = sum / Float(max(1, total))
        var list = [
            Cluster(
                range: 0..<n, centroid: c,
                error: Float(max(0, squares - total * Double((c * c).lanesSum))),
                splittable: n > 1, split: nil)
        ]
        work.withUnsafeMutableBufferPointer { w in
            index.withUnsafeMutableBufferPointer { ix in
                mass.withUnsafeMutableBufferPointer { ms in
                    side.withUnsafeMutableBufferPointer { sd in
                        var queue = Queue()
                        if list[0].splittable && list[0].error > 0 { queue.push(list[0].error, 0) }
                        while list.count < count, let top = queue.first {
                            guard let s = list[top.index].split else {
                                // Compute the splits of the largest clusters not yet split, at once.
                                var popped: [(error: Float, index: Int)] = []
                                var batch: [Int] = []
                                while batch.count < ahead, let e = queue.pop() {
                                    popped.append(e)
                                    if list[e.index].split == nil { batch.append(e.index) }
                                }
                                var results = [Split<V>?](repeating: nil, count: batch.count)
                                if list[batch[0]].range.count > lone {
                                    batch = [batch[0]]
                                    popped =
                                        [popped.first { $0.index == batch[0] }!]
                                        + popped.filter { $0.index != batch[0] }
                                    let cl = list[batch[0]]
                                    results = [
                                        split(
                                            w, ix, ms, sd, cl.range, cl.centroid, iterations: iterations + 1,
                                            rows: rows)
                                    ]
                                } else {
                                    let members = batch.reduce(0) { $0 + list[$1].range.count }
                                    results.withUnsafeMutableBufferPointer { out in
                                        rows.forEachBand(rows: batch.count, pixelsPerRow: members / batch.count) { r in
                                            for i in r {
                                                let cl = list[batch[i]]
                                                out[i] = split(
                                                    w, ix, ms, sd, cl.range, cl.centroid, iterations: iterations + 1,
                                                    rows: SerialRows())
                                            }
                                        }
                                    }
                                }
                                for (i, k) in batch.enumerated() {
                                    list[k].split = results[i]
                                    if results[i] == nil { list[k].splittable = false }
                                }
                                for e in popped where list[e.index].splittable { queue.push(e.error, e.index) }
                                continue
                            }
                            _ = queue.pop()
                            let range = list[top.index].range
                            let halves = [
                                Cluster(
                                    range: range.lowerBound..<s.mid, centroid: s.a, error: s.errorA,
                                    splittable: s.mid - range.lowerBound > 1, split: nil),
                                Cluster(
                                    range: s.mid..<range.upperBound, centroid: s.b, error: s.errorB,
                                    splittable: range.upperBound - s.mid > 1, split: nil),
                            ]
                            list[top.index] = halves[0]
                            list.append(halves[1])
                            for (k, cl) in [(top.index, halves[0]), (list.count - 1, halves[1])]
                            where cl.splittable && cl.error > 0 {
                                queue.push(cl.error, k)
                            }
                        }
                    }
                }
            }
        }
        var assignment = [UInt16](repeating: 0, count: n)
        for (k, cl) in list.enumerated() { for i in cl.range { assignment[Int(index[i])] = UInt16(k) } }
        let treeOrder = list.indices.sorted { list[$0].range.lowerBound < list[$1].range.lowerBound }
        return Result(assignment: assignment, centroids: list.map(\.centroid), treeOrder: treeOrder)
    }

    /// The range split in two by 2-means and partitioned in place (the first half nearer the first
    /// centroid), with the halves' weighted centroids and squared errors; nil when every member is
    /// the same vector.
    static func split<V: FloatLanes>(
        _ w: UnsafeMutableBufferPointer<V>, _ index: UnsafeMutableBufferPointer<Int32>,
        _ mass: UnsafeMutableBufferPointer<Float>, _ side: UnsafeMutableBufferPointer<Bool>, _ range: Range<Int>,
        _ centroid: V, iterations: Int, rows: any RowScheduler
    ) -> Split<V>? {
        // Every pass sums fixed chunks of the range, then the chunks in order: the same sums
        // whether the chunks run on one core or several.
        let chunks = (range.count + chunk - 1) / chunk
        func each<T>(_ body: (Range<Int>) -> T) -> [T] {
            let first = body(range.lowerBound..<min(range.upperBound, range.lowerBound + chunk))
            var out = [T](repeating: first, count: chunks)
            out.withUnsafeMutableBufferPointer { o in
                rows.forEachBand(rows: chunks - 1, pixelsPerRow: chunk * 16) { r in
                    for k in r {
                        let lo = range.lowerBound + (k + 1) * chunk
                        o[k + 1] = body(lo..<min(range.upperBound, lo + chunk))
                    }
                }
            }
            return out
        }
        // The member farthest from `from` (the first on ties).
        func farthest(from c: V) -> (index: Int, distance: Float) {
            var best = (index: range.lowerBound, distance: Float(-1))
            for part in each({ r -> (index: Int, distance: Float) in
                var far = (index: r.lowerBound, distance: Float(-1))
                for i in r {
                    let d = distance(w[i], c)
                    if d > far.distance { far = (i, d) }
                }
                return far
            }) where part.distance > best.distance {
                best = part
            }
            return best
        }
        var (all, squares, n) = (V(), 0.0, 0.0)
        for part in each({ r -> (V, Double, Double) in
            var sum = V()
            var q: Double = 0
            var count: Float = 0
            for i in r {
                let m = mass[i]
                sum += w[i] * m
                q += Double(m * (w[i] * w[i]).lanesSum)
                count += m
            }
            return (sum, q, Double(count))
        }) {
            all += part.0
            squares += part.1
            n += part.2
        }
        var c1 = w[farthest(from: centroid).index]
        let other = farthest(from: c1)
        guard other.distance > 0 else { return nil }
        var c2 = w[other.index]
        var nb: Double = 0
        var qb: Double = 0
        for step in 0..<iterations {
            // Nearer c2 exactly when x·(c2 − c1) > (|c2|² − |c1|²) / 2; sums without a branch.
            let axis = c2 - c1
            let threshold = ((c2 * c2).lanesSum - (c1 * c1).lanesSum) / 2
            let last = step == iterations - 1
            var sb = V()
            nb = 0
            qb = 0
            for part in each({ r -> (V, Float, Double) in
                var sum = V()
                var count: Float = 0
                var q: Double = 0
                if last {
                    for i in r {
                        let x = w[i]
                        let toB = (x * axis).lanesSum > threshold
                        side[i] = toB
                        let f: Float = toB ? mass[i] : 0
                        sum += x * f
                        count += f
                        q += Double(f * (x * x).lanesSum)
                    }
                } else {
                    for i in r {
                        let x = w[i]
                        let f: Float = (x * axis).lanesSum > threshold ? mass[i] : 0
                        sum += x * f
                        count += f
                    }
                }
                return (sum, count, q)
            }) {
                sb += part.0
                nb += Double(part.1)
                qb += part.2
            }
            guard nb > 0, nb < n else { return nil }
            c1 = (all - sb) / Float(n - nb)
            c2 = sb / Float(nb)
        }
        let (na, qa) = (n - nb, squares - qb)
        // Partition: the first half's members first.
        var i = range.lowerBound
        var j = range.upperBound - 1
        while i <= j {
            if !side[i] {
                i += 1
            } else if side[j] {
                j -= 1
            } else {
                w.swapAt(i, j)
                index.swapAt(i, j)
                mass.swapAt(i, j)
                side.swapAt(i, j)
            }
        }
        return Split(
            mid: i, a: c1, b: c2, errorA: Float(max(0, qa - na * Double((c1 * c1).lanesSum))),
            errorB: Float(max(0, qb - nb * Double((c2 * c2).lanesSum))))
    }
}

/// Float vectors summed as a tree of halves: a few vector adds, where `sum()` adds lane by lane.
protocol FloatLanes: SIMD where Scalar == Float {
    var lanesSum: Float { get }
}

extension SIMD8: FloatLanes where Scalar == Float {
    @inline(__always) var lanesSum: Float {
        let q = lowHalf + highHalf
        let h = q.lowHalf + q.highHalf
        return h.x + h.y
    }
}

extension SIMD16: FloatLanes where Scalar == Float {
    @inline(__always) var lanesSum: Float { (lowHalf + highHalf).lanesSum }
}
