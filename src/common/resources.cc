#include "common/resources.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <limits>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace druba {

// The high-water mark of this process image's resident set (VmHWM). Not getrusage's ru_maxrss:
// Linux carries that across fork and exec, so a run started by a large process (a benchmark
// script holding results) reported its parent's peak (1444 MB for a run of 37 MB).
namespace {
// A "Key: value kB" line of a /proc file (status, meminfo) in MB, 0 when absent.
double ProcFieldMb(const char* path, const std::string& wanted) {
  std::ifstream in(path);
  std::string key;
  while (in >> key) {
    if (key == wanted) {
      double kib = 0;
      return in >> kib ? kib / 1024.0 : 0;
    }
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}
}  // namespace

double PeakRssMb() {
  if (const double peak = ProcFieldMb("/proc/self/status", "VmHWM:"); peak > 0) return peak;
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

// The control group's memory limit less its usage, in MB (cgroup v2, then v1); 0 when none.
double GroupLeftMb() {
  const auto read = [](const char* path) -> double {
    std::ifstream in(path);
    double bytes = 0;
    return in >> bytes ? bytes : 0;  // "max" (no limit) reads as nothing
  };
  for (const auto& [max, used] :
       {std::pair{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
        std::pair{"/sys/fs/cgroup/memory/memory.limit_in_bytes",
                  "/sys/fs/cgroup/memory/memory.usage_in_bytes"}}) {
    const double limit = read(max);
    // v1 writes a huge number for none
    if (limit > 0 && limit < 1e18) return std::max(0.0, limit - read(used)) / (1024.0 * 1024.0);
  }
  return 0;
}
}  // namespace

double MachineMemoryMb() {
  double left = ProcFieldMb("/proc/meminfo", "MemAvailable:");
  const double group = GroupLeftMb();
  if (group > 0 && (left == 0 || group < left)) left = group;
  return left > 0 ? left + CurrentRssMb() : 0;
}

std::optional<std::string> LimitWatch::Check(Growth upcoming) {
  if (reason_) return reason_;
  if (report_ && clock_.Seconds() - last_report_s_ >= interval_s_) {
    last_report_s_ = clock_.Seconds();
    report_();
  }
  if (interrupted_ != nullptr && interrupted_->load(std::memory_order_relaxed)) {
    reason_ = "interrupted";
  } else if (limits_.time_limit_s > 0 && clock_.Seconds() > limits_.time_limit_s) {
    reason_ = whole_limit_s_ > 0 ? "its share of the time limit (" + Short(limits_.time_limit_s) +
                                       " of " + Short(whole_limit_s_) + " s) used"
              : shared_ ? "its share of the time (" + Short(limits_.time_limit_s) + " s) used"
                        : "time limit of " + Short(limits_.time_limit_s) + " s reached";
  } else if (limits_.time_limit_s > 0 &&
             clock_.Seconds() + upcoming.seconds > limits_.time_limit_s) {
    reason_ = fmt::format(
        "time limit of {} s reached (the next growth of the search tables, about {:.1f} s, "
        "would end after it)",
        Short(limits_.time_limit_s), upcoming.seconds);
  } else if (limits_.memory_limit_mb > 0 || machine_mb_ > 0) {
    const bool own =
        limits_.memory_limit_mb > 0 && (machine_mb_ == 0 || limits_.memory_limit_mb <= machine_mb_);
    const double cap_mb = own ? limits_.memory_limit_mb : machine_mb_;
    const std::string what = own ? "memory limit of " + Short(cap_mb) + " MB reached"
                                 : "the machine's memory nearly used (" +
                                       std::to_string(static_cast<long>(cap_mb)) +
                                       " MB, nine tenths of what it had for this run)";
    const double now_mb = CurrentRssMb();
    const double upcoming_mb = upcoming.bytes / (1024.0 * 1024.0);
    if (now_mb > cap_mb) {
      reason_ = what;
    } else if (now_mb + upcoming_mb > cap_mb) {
      reason_ = what + " (" + std::to_string(static_cast<long>(now_mb)) +
                " MB in use, and the next growth of the search tables needs " +
                std::to_string(static_cast<long>(upcoming_mb) + 1) + " MB more)";
    }
  }
  return reason_;
}

struct Canceller::State {
  const std::atomic<bool>* interrupted;
  double deadline_s;  // 0: none
  Stopwatch clock;
  std::mutex mutex;
  std::condition_variable_any wake;
  std::vector<std::pair<std::uint64_t, std::function<void()>>> armed;
  std::uint64_t next_id = 1;
  std::jthread watcher;  // last: joined first
};

Canceller::Canceller(const std::atomic<bool>* interrupted, double deadline_s, Stopwatch clock)
    : state_(new State{interrupted, deadline_s, clock, {}, {}, {}, 1, {}}) {}

Canceller::~Canceller() {
  if (state_->watcher.joinable()) {
    state_->watcher.request_stop();
    state_->watcher.join();
  }
}

bool Canceller::MustStop() const {
  return (state_->interrupted != nullptr && state_->interrupted->load()) ||
         (state_->deadline_s > 0 && state_->clock.Seconds() > state_->deadline_s);
}

std::uint64_t Canceller::Arm(std::function<void()> cancel) {
  const std::lock_guard lock(state_->mutex);
  const std::uint64_t id = state_->next_id++;
  state_->armed.emplace_back(id, std::move(cancel));
  if (!state_->watcher.joinable()) {
    state_->watcher = std::jthread([this](const std::stop_token& stop) { Watch(stop); });
  }
  return id;
}

void Canceller::Watch(const std::stop_token& stop) {
  std::unique_lock lock(state_->mutex);
  while (!stop.stop_requested()) {
    state_->wake.wait_for(lock, stop, std::chrono::milliseconds(10), [] { return false; });
    if (state_->armed.empty() || !MustStop()) continue;
    for (const auto& entry : state_->armed) entry.second();
  }
}

void Canceller::Disarm(std::uint64_t id) {
  const std::lock_guard lock(state_->mutex);
  std::erase_if(state_->armed, [id](const auto& entry) { return entry.first == id; });
}

CancelGuard::CancelGuard(std::shared_ptr<Canceller> canceller, std::function<void()> cancel)
    : canceller_(std::move(canceller)), id_(canceller_->Arm(std::move(cancel))) {}

CancelGuard::CancelGuard(CancelGuard&& other) noexcept
    : canceller_(std::move(other.canceller_)), id_(other.id_) {}

CancelGuard::~CancelGuard() {
  if (canceller_) canceller_->Disarm(id_);
}

CancelGuard LimitWatch::CancelOnStop(std::function<void()> cancel) {
  if (!canceller_) return {};
  return {canceller_, std::move(cancel)};
}

}  // namespace druba
