#include "common/resources.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

namespace druba {

// The high-water mark of this process image's resident set (VmHWM). Not getrusage's ru_maxrss:
// Linux carries that across fork and exec, so a run started by a large process (a benchmark
// script holding results) reported its parent's peak (1444 MB for a run of 37 MB).
double PeakRssMb() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      double kib = 0;
      if (status >> kib) return kib / 1024.0;
      break;
    }
    status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

double CurrentRssMb() {
  std::ifstream statm("/proc/self/statm");
  long pages_total = 0;
  long pages_resident = 0;
  if (!(statm >> pages_total >> pages_resident)) return 0;
  return static_cast<double>(pages_resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
         (1024.0 * 1024.0);
}

namespace {
std::string Short(double value) {
  return fmt::format("{:g}", value);
}
}  // namespace

std::optional<std::string> LimitWatch::Check(double upcoming_bytes) {
  if (reason_) return reason_;
  if (report_ && clock_.Seconds() - last_report_s_ >= interval_s_) {
    last_report_s_ = clock_.Seconds();
    report_();
  }
  if (interrupted_ != nullptr && interrupted_->load(std::memory_order_relaxed)) {
    reason_ = "interrupted";
  } else if (limits_.time_limit_s > 0 && clock_.Seconds() > limits_.time_limit_s) {
    reason_ = "time limit of " + Short(limits_.time_limit_s) + " s reached";
  } else if (limits_.memory_limit_mb > 0) {
    const double now_mb = CurrentRssMb();
    const double upcoming_mb = upcoming_bytes / (1024.0 * 1024.0);
    if (now_mb > limits_.memory_limit_mb) {
      reason_ = "memory limit of " + Short(limits_.memory_limit_mb) + " MB reached";
    } else if (now_mb + upcoming_mb > limits_.memory_limit_mb) {
      reason_ = "memory limit of " + Short(limits_.memory_limit_mb) + " MB reached (" +
                std::to_string(static_cast<long>(now_mb)) +
                " MB in use, and the next growth of the search tables needs " +
                std::to_string(static_cast<long>(upcoming_mb) + 1) + " MB more)";
    }
  }
  return reason_;
}

}  // namespace druba
