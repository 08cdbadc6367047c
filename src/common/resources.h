// Wall-clock time, memory use, and the limits that end a run cleanly.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

namespace druba {

double PeakRssMb();     // high-water mark of the resident set, from getrusage
double CurrentRssMb();  // resident set now, from /proc/self/statm
// The memory this process may still take, in MB: the machine's available memory (MemAvailable)
// or its control group's limit, the smaller, plus what it holds now. 0 when neither is known.
double MachineMemoryMb();

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// What the next growth of a search's tables would cost at once, when one is near: the bytes it
// allocates, and the seconds it takes as predicted from the last growth measured (0: none). A
// growth cannot stop half-way, so a limit it would pass stops the search before it.
struct Growth {
  double bytes = 0;
  double seconds = 0;
  Growth& operator+=(const Growth& other) {
    bytes += other.bytes;
    seconds += other.seconds;
    return *this;
  }
};

struct ResourceLimits {
  double time_limit_s = 0;     // 0: none
  double memory_limit_mb = 0;  // 0: none
};

// Ends calls that do not poll the limits themselves (a solver's query) when a run must stop: a
// thread of its own, started at the first Arm, looks every 10 ms whether the signal flag is set or
// the deadline has passed, and then calls every armed `cancel` (again every 10 ms while armed: a
// solver interrupted before its query starts would not hear of it).
class Canceller {
 public:
  Canceller(const std::atomic<bool>* interrupted, double deadline_s, Stopwatch clock);
  Canceller(const Canceller&) = delete;
  Canceller& operator=(const Canceller&) = delete;
  ~Canceller();
  // `cancel` is called from the watching thread (under a lock that Disarm takes: once Disarm has
  // returned, it is not called again). It must be safe to call from there (Z3's interrupt is).
  std::uint64_t Arm(std::function<void()> cancel);
  void Disarm(std::uint64_t id);
  // Whether the run must stop now (a signal, or the deadline): what the watching thread asks.
  bool MustStop() const;

 private:
  struct State;
  void Watch(const std::stop_token& stop);  // the watching thread
  std::unique_ptr<State> state_;
};

// While it lives, its `cancel` is armed (docs: Canceller). Empty when a run has no limit to
// watch.
class CancelGuard {
 public:
  CancelGuard() = default;
  CancelGuard(std::shared_ptr<Canceller> canceller, std::function<void()> cancel);
  CancelGuard(const CancelGuard&) = delete;
  CancelGuard& operator=(const CancelGuard&) = delete;
  CancelGuard(CancelGuard&& other) noexcept;
  CancelGuard& operator=(CancelGuard&&) = delete;
  ~CancelGuard();

 private:
  std::shared_ptr<Canceller> canceller_;
  std::uint64_t id_ = 0;
};

// Polled from hot loops: cheap except every `kStride`-th call. Once it reports a reason, it keeps
// reporting it.
class LimitWatch {
 public:
  // Beside `limits`, a run stops at nine tenths of the memory the machine had for it when it
  // started (MachineMemoryMb), which a larger --memory-limit or none cannot lift: past it the run
  // would be killed, or end without its report.
  explicit LimitWatch(ResourceLimits limits, const std::atomic<bool>* interrupted = nullptr)
      : limits_(limits), interrupted_(interrupted), machine_mb_(0.9 * MachineMemoryMb()) {
    if (interrupted != nullptr || limits.time_limit_s > 0) {
      canceller_ = std::make_shared<Canceller>(interrupted, limits.time_limit_s, clock_);
    }
  }

  // Arms `cancel` for a call that does not poll (a solver's query) until the guard goes: called
  // within about 10 ms of a signal or of the time limit (not the memory limit, which the
  // caller's next Check sees). The caller then hears the reason from Check, as from a poll.
  [[nodiscard]] CancelGuard CancelOnStop(std::function<void()> cancel);

  // nullopt while the run may go on; otherwise why it must stop.
  std::optional<std::string> Poll() {
    if (reason_) return reason_;
    if (++calls_ % kStride != 0) return std::nullopt;
    return Check();
  }
  // The same, where `upcoming()` (called only when the limits are checked) says what a search is
  // about to allocate at once (a table that doubles), as a Growth: a memory limit then stops it
  // before the allocation rather than after, when the machine may already have killed it, and a
  // time limit before a growth that would end after it.
  template <class Upcoming>
  std::optional<std::string> Poll(Upcoming&& upcoming) {
    if (reason_) return reason_;
    if (++calls_ % kStride != 0) return std::nullopt;
    return Check(upcoming());
  }
  std::optional<std::string> Check(Growth upcoming = {});
  // Ends the run from inside (a model that cannot go on): every later Poll and Check says why.
  void Stop(std::string reason) {
    if (!reason_) reason_ = std::move(reason);
  }
  const Stopwatch& clock() const { return clock_; }
  // Seconds left before the time limit (a large number when there is none).
  double RemainingSeconds() const {
    return limits_.time_limit_s > 0 ? limits_.time_limit_s - clock_.Seconds() : 1e9;
  }
  // A watch for one part of this run: the same memory limit and signal, and `share` (0..1) of
  // the time left (all of it when there is no time limit), `most_s` seconds at most. Its time
  // limit, once reached, is named as that share; this watch is not stopped by it.
  [[nodiscard]] LimitWatch Share(double share, double most_s = 0) const {
    double seconds = limits_.time_limit_s > 0 ? std::max(0.01, share * RemainingSeconds()) : 0;
    if (most_s > 0) seconds = seconds > 0 ? std::min(seconds, most_s) : most_s;
    if (seconds > 0) seconds = std::max(0.01, std::round(seconds * 100) / 100);  // as printed
    LimitWatch part({seconds, limits_.memory_limit_mb}, interrupted_);
    part.whole_limit_s_ = limits_.time_limit_s;
    part.shared_ = true;
    return part;
  }
  // Calls `report` from Check() whenever `interval_s` seconds have passed since the last call.
  void SetProgress(std::function<void()> report, double interval_s) {
    report_ = std::move(report);
    interval_s_ = interval_s;
  }

 private:
  static constexpr std::uint32_t kStride = 4096;
  ResourceLimits limits_;
  const std::atomic<bool>* interrupted_;
  double machine_mb_;  // 0: not known
  Stopwatch clock_;
  std::uint32_t calls_ = 0;
  std::optional<std::string> reason_;
  std::function<void()> report_;
  double interval_s_ = 1;
  double last_report_s_ = 0;
  std::shared_ptr<Canceller> canceller_;  // when there is a signal or a time to watch
  double whole_limit_s_ = 0;              // a Share's: the whole run's time limit
  bool shared_ = false;                   // a Share
};

// The same for a run that may have no limits (null): an empty guard.
[[nodiscard]] inline CancelGuard CancelOnStop(LimitWatch* limits, std::function<void()> cancel) {
  return limits != nullptr ? limits->CancelOnStop(std::move(cancel)) : CancelGuard();
}

}  // namespace druba
