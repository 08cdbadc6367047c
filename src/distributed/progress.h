// Progress reports of a distributed run (--progress), at process 0: what is being computed (the
// bounds being reached, a pass of the sandwich proof's O, the search over orbits) and each
// process's count of what it stores and its resident memory. Process 0 decides when a report is
// due; every process takes part in gathering it, so the decision travels in a reduction that
// every process makes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/resources.h"
#include "distributed/comm.h"
#include "explore/portable.h"

namespace druba::distributed {

struct ProgressLine {
  std::string phase;  // "r=3 d=1", "upper bound O, pass 2", "search over orbits"
  std::string noun;   // what the counts count: "states", "abstract states"
  std::vector<std::uint64_t> counts;
  std::vector<double> memory_mb;
};
using Progress = std::function<void(const ProgressLine&)>;

// At process 0: each process's `count` and resident memory (its peak, or now), in MB.
// Collective.
inline void GatherFigures(const Comm& comm, std::uint64_t count, bool peak,
                          std::vector<std::uint64_t>& counts, std::vector<double>& memory_mb) {
  std::vector<std::uint8_t> figures;
  PutVarint(count, figures);
  PutVarint(static_cast<std::uint64_t>((peak ? PeakRssMb() : CurrentRssMb()) * 1024), figures);
  for (const std::vector<std::uint8_t>& part : comm.Gather(figures)) {
    std::size_t at = 0;
    std::uint64_t got = 0;
    std::uint64_t kb = 0;
    GetVarint(part, at, got);
    GetVarint(part, at, kb);
    counts.push_back(got);
    memory_mb.push_back(static_cast<double>(kb) / 1024);
  }
}

// When reports are due, shared by the phases of a run so that the interval runs on across them.
class ProgressTicker {
 public:
  ProgressTicker() = default;
  ProgressTicker(Progress report, double interval_s)
      : report_(std::move(report)), interval_s_(interval_s), next_s_(interval_s) {}

  // At process 0, whether a report is due (never elsewhere, nor without reports): fold it into a
  // reduction every process makes.
  bool Due(const Comm& comm) const {
    return interval_s_ > 0 && comm.rank() == 0 && clock_.Seconds() >= next_s_;
  }
  // Gathers every process's `count` and memory; process 0 reports them. Collective.
  void Report(const Comm& comm, std::string phase, std::string noun, std::uint64_t count) {
    ProgressLine line{std::move(phase), std::move(noun), {}, {}};
    GatherFigures(comm, count, /*peak=*/false, line.counts, line.memory_mb);
    if (comm.rank() == 0 && report_) report_(line);
    next_s_ = clock_.Seconds() + interval_s_;
  }
  // Reports when process 0 finds a report due, at the cost of one reduction. Collective.
  void ReportIfDue(const Comm& comm, std::string phase, std::string noun, std::uint64_t count) {
    if (interval_s_ > 0 && comm.Max(Due(comm) ? 1 : 0) != 0) {
      Report(comm, std::move(phase), std::move(noun), count);
    }
  }

 private:
  Progress report_;
  double interval_s_ = 0;  // 0: no reports
  double next_s_ = 0;
  Stopwatch clock_;
};

}  // namespace druba::distributed
