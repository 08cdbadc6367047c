// What `druba verify`/`test` share between CPDS and `.drb` models: the mode names, the progress
// line and the schedule in the JSON report.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "abstraction/driver.h"
#include "common/json.h"
#include "common/resources.h"

namespace druba::cli {

// --jobs: 0 means one expansion thread per core.
inline unsigned JobsFromOption(unsigned jobs) {
  return jobs != 0 ? jobs : std::max(1U, std::thread::hardware_concurrency());
}

inline Mode ModeFromName(const std::string& name) {
  return name == "ai"         ? Mode::kAi
         : name == "naive"    ? Mode::kNaive
         : name == "explicit" ? Mode::kExplicit
                              : Mode::kDruba;
}

// About once a second on stderr: bounds, states, abstract states, successor calls/s, memory.
// `label` (e.g. "threads=3 ") goes before the bounds.
template <class Run>
void InstallProgress(LimitWatch& limits, const Run& run, std::string label = "") {
  limits.SetProgress(
      [&run, &limits, label = std::move(label), last_calls = std::uint64_t{0},
       last_s = 0.0]() mutable {
        const auto& ex = run.explorer();
        const double now = limits.clock().Seconds();
        const std::uint64_t calls = ex.stats().image_calls;
        const double rate =
            now > last_s ? static_cast<double>(calls - last_calls) / (now - last_s) : 0.0;
        std::fprintf(stderr,
                     "druba: %6.1f s  %sr=%u d=%u  %zu states  %zu abstract  %.0f successor "
                     "calls/s  %.0f MB\n",
                     now, label.c_str(), ex.bounds().rounds, ex.bounds().delays, run.num_states(),
                     run.abstract_states().size(), rate, CurrentRssMb());
        last_calls = calls;
        last_s = now;
      },
      1.0);
}

// "rounds", "delays" (the bounds at the end) and "plateau_start" (where the abstract set last
// grew).
inline void WriteBoundsJson(JsonWriter& w, const RunResult& result) {
  w.Key("rounds").UInt(result.bounds.rounds);
  w.Key("delays").UInt(result.bounds.delays);
  w.Key("plateau_start").BeginObject();
  w.Key("rounds").UInt(result.plateau_start.rounds);
  w.Key("delays").UInt(result.plateau_start.delays);
  w.EndObject();
}

// "schedule": every bound raise, its bounds after, the abstract states it added, the successor
// calls so far.
inline void WriteScheduleJson(JsonWriter& w, const std::vector<RaiseEvent>& schedule) {
  w.Key("schedule").BeginArray();
  for (const RaiseEvent& e : schedule) {
    w.BeginObject();
    w.Key("raise").String(e.dim == RaiseEvent::Dim::kStart    ? "start"
                          : e.dim == RaiseEvent::Dim::kRounds ? "rounds"
                                                              : "delays");
    w.Key("rounds").UInt(e.after.rounds);
    w.Key("delays").UInt(e.after.delays);
    w.Key("new_abstract").UInt(e.new_abstract);
    w.Key("image_calls").UInt(e.image_calls);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace druba::cli
