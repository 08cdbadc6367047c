// A fixed set of helper threads that run one batch of tasks at a time: Run(n, task) calls task(0)
// on the caller and task(1) ... task(n - 1) on helpers, and returns when all have finished. The
// threads wait between batches, so a batch costs a wake-up, not a thread start (the explorer
// runs thousands of small batches, one per block of a frontier).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace druba {

class WorkerPool {
 public:
  WorkerPool() = default;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    wake_.notify_all();
    threads_.clear();  // joins
  }

  // Runs task(0..tasks-1), task(0) on the calling thread; tasks - 1 helpers are started the first
  // time they are needed. An exception a task throws is caught where it ran; when every task has
  // finished, the first one caught is thrown again on the calling thread (never std::terminate).
  void Run(unsigned tasks, const std::function<void(unsigned)>& task) {
    if (tasks == 0) return;
    while (threads_.size() + 1 < tasks) {
      const auto index = static_cast<unsigned>(threads_.size() + 1);
      threads_.emplace_back([this, index] { Serve(index); });
    }
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      tasks_ = tasks;
      pending_ = tasks - 1;
      ++generation_;
    }
    wake_.notify_all();
    Guarded(task, 0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void Guarded(const std::function<void(unsigned)>& task, unsigned index) {
    try {
      task(index);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }

  void Serve(unsigned index) {
    std::uint64_t seen = 0;
    for (;;) {
      const std::function<void(unsigned)>* task = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return quit_ || generation_ != seen; });
        if (quit_) return;
        seen = generation_;
        if (index >= tasks_) continue;  // not needed in this batch
        task = task_;
      }
      Guarded(*task, index);
      {
        const std::lock_guard<std::mutex> lock(mutex_);
        --pending_;
      }
      done_.notify_one();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(unsigned)>* task_ = nullptr;
  unsigned tasks_ = 0;
  unsigned pending_ = 0;
  std::uint64_t generation_ = 0;
  bool quit_ = false;
  std::exception_ptr error_;           // the first exception a task of this batch threw
  std::vector<std::jthread> threads_;  // last member: joined first
};

}  // namespace druba
