// The progress line: about once a second, the bounds, states, abstract states (and |O| once
// known), successor calls per second and memory, handed to a sink the front end chose.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <fmt/format.h>

#include "common/resources.h"

namespace druba::run {

using ProgressSink = std::function<void(const std::string&)>;

// `label` (e.g. "threads=3 ") goes before the bounds. The line refers to `driver`: call
// StopProgress before it goes away.
template <class Driver>
void InstallProgress(LimitWatch& limits, const Driver& driver, ProgressSink sink,
                     std::string label) {
  limits.SetProgress(
      [&driver, &limits, sink = std::move(sink), label = std::move(label),
       last_calls = std::uint64_t{0}, last_s = 0.0]() mutable {
        const auto& ex = driver.explorer();
        const double now = limits.clock().Seconds();
        const std::uint64_t calls = ex.stats().image_calls;
        const double rate =
            now > last_s ? static_cast<double>(calls - last_calls) / (now - last_s) : 0.0;
        std::string abstract = std::to_string(driver.abstract_states().size()) + " abstract";
        if (const auto upper = driver.upper_bound_size()) {
          abstract += " of at most " + std::to_string(*upper);
        }
        std::string states = std::to_string(driver.num_states()) + " states";
        if (const std::size_t forms = driver.orbit_states(); forms > 0) {
          states += ", " + std::to_string(forms) + " one per orbit";  // orbits.h, beside it
        }
        sink(
            fmt::format("druba: {:6.1f} s  {}{}r={} d={}  {}  {}  {:.0f} successor calls/s  "
                        "{:.0f} MB",
                        now, label, driver.phase(), ex.bounds().rounds, ex.bounds().delays, states,
                        abstract, rate, CurrentRssMb()));
        last_calls = calls;
        last_s = now;
      },
      1.0);
}

inline void StopProgress(LimitWatch& limits) {
  limits.SetProgress({}, 1.0);
}

}  // namespace druba::run
