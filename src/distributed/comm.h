// What the distributed search asks of the processes of a run, over MPI (Open MPI in Debian):
// reductions, one all-to-all exchange of byte batches, a gather to process 0 and a broadcast.
// Only comm.cc includes <mpi.h>. Every call is collective: each process of the run makes it, in
// the same order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace druba::distributed {

// MPI_Init and MPI_Finalize around a run (one per process).
class Session {
 public:
  Session(int* argc, char*** argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  // Ends every process of the run at once with `code` (one process cannot go on alone: the others
  // would wait for it in a collective).
  [[noreturn]] static void Abort(int code);
};

class Comm {
 public:
  Comm();  // MPI_COMM_WORLD: after the Session is made

  int rank() const { return rank_; }
  int size() const { return size_; }

  std::uint64_t Sum(std::uint64_t mine) const;
  std::uint64_t Min(std::uint64_t mine) const;
  std::uint64_t Max(std::uint64_t mine) const;

  // Sends outboxes[p] to process p (each below 2^31 bytes) and returns what the processes sent
  // here, in rank order. Counts the bytes and messages sent to other processes.
  std::vector<std::uint8_t> Exchange(const std::vector<std::vector<std::uint8_t>>& outboxes);
  // At process 0: every process's bytes, by rank; elsewhere: empty.
  std::vector<std::vector<std::uint8_t>> Gather(const std::vector<std::uint8_t>& mine) const;
  // Every process's bytes, by rank, at every process.
  std::vector<std::vector<std::uint8_t>> AllGather(const std::vector<std::uint8_t>& mine) const;
  // `text` of process `from`, at every process.
  std::string Broadcast(const std::string& text, int from) const;
  // The same, but a process that waits for it sleeps between looks (a millisecond) instead of
  // spinning in MPI: for the orders process 0 sends between stretches of its own work (a solver),
  // so that the waiting processes leave the cores to it. Every process calls this one, not
  // Broadcast, for the same message.
  std::string BroadcastIdle(const std::string& text, int from) const;
  // Whether some process stopped (`stopped` there), and if so, at every process, the reason of the
  // first one that did.
  bool AnyStopped(bool stopped, std::string& reason) const;

  std::uint64_t bytes_sent() const { return bytes_sent_; }
  std::uint64_t messages_sent() const { return messages_sent_; }
  std::uint64_t exchanges() const { return exchanges_; }

 private:
  int rank_ = 0;
  int size_ = 1;
  std::uint64_t bytes_sent_ = 0;
  std::uint64_t messages_sent_ = 0;
  std::uint64_t exchanges_ = 0;
};

}  // namespace druba::distributed
