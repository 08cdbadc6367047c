// What the engine asks of a model and of a listener (the concepts only, so that a model kind can
// state its conformance without including the engine).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "explore/state_store.h"

namespace druba {

// The narrow model interface (STYLE.md 1). Successors come through a callback with the action
// that produced them; a thread that yields nothing is blocked and stutters.
template <class M>
concept ExplorableModel = requires(M& model, StateView state, std::uint32_t thread) {
  { model.num_threads() } -> std::convertible_to<std::uint32_t>;
  { model.state_width() } -> std::convertible_to<std::size_t>;
  model.ForEachInitial([](StateView) {});
  model.ForEachSuccessor(state, thread, [](std::uint32_t /*action*/, StateView) {});
};

// A model whose successors several threads may compute at once: each thread gets a Worker of its
// own (its buffers) over the shared model, and ForEachSuccessor of different workers may run
// concurrently. The explorer's parallel expansion (SetJobs) needs it; other models run on one
// thread.
template <class M>
concept ConcurrentModel = ExplorableModel<M> && std::constructible_from<typename M::Worker, M&> &&
    requires(typename M::Worker& worker, StateView state, std::uint32_t thread) {
  worker.ForEachSuccessor(state, thread, [](std::uint32_t /*action*/, StateView) {});
};

// Hears about each program state the first time it is stored. Returning false stops the search.
template <class L>
concept ExploreListener = requires(L& listener, std::uint32_t record, StateView state) {
  { listener.OnNewState(record, state) } -> std::convertible_to<bool>;
};

}  // namespace druba
