// The MPI transport: non-blocking point-to-point messages on a duplicate of MPI_COMM_WORLD, waited
// for by polling, so that a wait can end in a clear error (a peer's failure notice, or a deadline
// that names the ranks not heard from) instead of a hang, and so that a waiting rank sleeps
// instead of spinning on a busy machine. Only this file sees mpi.h.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <sstream>
#include <thread>

#include "distributed/transport.h"
#include "ditto/error.h"

namespace ditto::distributed::detail {
namespace {

constexpr int kFailureTag = 32000;  // a rank's failure notice: "<rank>\n<message>"
constexpr int kAckTag = 32001;      // a peer has seen it
constexpr int kFailureBytes = 4096;

void check(int rc, const char* op, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  ditto::detail::fail(op, what, " failed: ", std::string(msg, static_cast<std::size_t>(len)));
}

class MpiTransport final : public Transport {
 public:
  MpiTransport() {
    int inited = 0;
    MPI_Initialized(&inited);
    owns_mpi_ = !inited;
    if (owns_mpi_) {
      int provided = 0;
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "distributed.init", "MPI_Init_thread");
    }
    check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "distributed.init", "MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &world_);
    failure_buf_.resize(kFailureBytes);
    check(MPI_Irecv(failure_buf_.data(), kFailureBytes, MPI_BYTE, MPI_ANY_SOURCE, kFailureTag, comm_, &failure_req_),
          "distributed.init", "MPI_Irecv");
  }

  int rank() const override { return rank_; }
  int world() const override { return world_; }
  bool broken() const override { return broken_; }

  std::vector<Bytes> exchange(const char* op, int tag, std::vector<std::pair<int, Bytes>> sends,
                              const std::vector<int>& from, double timeout_s) override {
    if (broken_) ditto::detail::fail(op, "the process group failed earlier; no collective can run");
    std::vector<MPI_Request> reqs(sends.size(), MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < sends.size(); ++i) {
      const Bytes& b = sends[i].second;
      check(MPI_Isend(b.data(), static_cast<int>(b.size()), MPI_BYTE, sends[i].first, tag, comm_, &reqs[i]), op,
            "MPI_Isend");
      bytes_sent += b.size();
      ++messages;
    }
    std::vector<Bytes> got(from.size());
    std::vector<bool> have(from.size(), false);
    std::vector<bool> sent(sends.size(), false);
    std::size_t left = from.size() + sends.size();
    const auto start = std::chrono::steady_clock::now();
    while (left > 0) {
      bool progress = false;
      for (std::size_t i = 0; i < from.size(); ++i) {
        if (have[i]) continue;
        int flag = 0;
        MPI_Status st;
        check(MPI_Iprobe(from[i], tag, comm_, &flag, &st), op, "MPI_Iprobe");
        if (!flag) continue;
        int n = 0;
        MPI_Get_count(&st, MPI_BYTE, &n);
        got[i].resize(static_cast<std::size_t>(n));
        check(MPI_Recv(got[i].data(), n, MPI_BYTE, from[i], tag, comm_, MPI_STATUS_IGNORE), op, "MPI_Recv");
        have[i] = true;
        --left;
        progress = true;
      }
      for (std::size_t i = 0; i < reqs.size(); ++i) {
        if (sent[i]) continue;
        int flag = 0;
        check(MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE), op, "MPI_Test");
        if (flag) sent[i] = true, --left, progress = true;
      }
      if (left == 0) break;
      if (progress) continue;
      // A peer's failure notice only when nothing else arrived: what it sent before it failed (this
      // step's data) is taken first, so every rank finishes the steps the failed one finished.
      poll_failures(op);
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (waited > timeout_s) {
        std::vector<int> late;  // the ranks not heard from, or not taking this rank's message
        for (std::size_t i = 0; i < from.size(); ++i)
          if (!have[i]) late.push_back(from[i]);
        for (std::size_t i = 0; i < sends.size(); ++i)
          if (!sent[i]) late.push_back(sends[i].first);
        std::sort(late.begin(), late.end());
        late.erase(std::unique(late.begin(), late.end()), late.end());
        std::ostringstream who;
        for (std::size_t i = 0; i < late.size(); ++i) who << (i ? ", " : "") << late[i];
        broken_ = true;
        ditto::detail::fail(op, "rank ", rank_, " waited ", timeout_s, " s for rank", late.size() > 1 ? "s " : " ",
                            who.str(), ", which stopped, hung or died (DITTO_DISTRIBUTED_TIMEOUT sets the limit)");
      }
      // Waiting for a message: poll for a moment (a collective's ranks usually arrive together),
      // then sleep, so that a waiting rank leaves its core to the ranks it waits for. While a
      // send is in flight, only yield: a large message moves in fragments, each needing this
      // rank to call into MPI, so sleeping here would stall the transfer.
      const bool sending = std::find(sent.begin(), sent.end(), false) != sent.end();
      if (sending || waited < 2e-3)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(waited < 0.2 ? 50 : 1000));
    }
    return got;
  }

  void notify_failure(const std::string& what) override {
    if (broken_) return;
    broken_ = true;
    failed_here_ = true;
    std::string msg = std::to_string(rank_) + "\n" + what;
    if (msg.size() > kFailureBytes) msg.resize(kFailureBytes);
    std::vector<MPI_Request> reqs;
    for (int p = 0; p < world_; ++p) {
      if (p == rank_) continue;
      reqs.emplace_back();
      MPI_Isend(msg.data(), static_cast<int>(msg.size()), MPI_BYTE, p, kFailureTag, comm_, &reqs.back());
    }
    // Small messages leave at once; give them a moment to be sent, never wait on a dead peer.
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      int done = 0;
      MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE);
      if (done || std::chrono::steady_clock::now() - start > std::chrono::seconds(2)) break;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }

  void finalize() override {
    if (finalized_) return;
    finalized_ = true;
    // After a failure the peers may never match what is outstanding, and MPI_Finalize could wait
    // for them: leave without it (mpirun then reports the failed job). The rank that failed first
    // waits (a few seconds at most) until its peers have seen its notice, so that they report it
    // before mpirun, seeing this rank exit, ends them.
    if (broken_) {
      if (failed_here_) {
        int acked = 0;
        const auto start = std::chrono::steady_clock::now();
        while (acked < world_ - 1 && std::chrono::steady_clock::now() - start < std::chrono::seconds(3)) {
          int flag = 0;
          MPI_Status st;
          MPI_Iprobe(MPI_ANY_SOURCE, kAckTag, comm_, &flag, &st);
          if (!flag) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            continue;
          }
          char b;
          MPI_Recv(&b, 1, MPI_BYTE, st.MPI_SOURCE, kAckTag, comm_, MPI_STATUS_IGNORE);
          ++acked;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));  // time for their messages to be printed
      }
      return;
    }
    MPI_Cancel(&failure_req_);
    MPI_Wait(&failure_req_, MPI_STATUS_IGNORE);
    MPI_Comm_free(&comm_);
    if (owns_mpi_) MPI_Finalize();
  }

 private:
  void poll_failures(const char* op) {
    int flag = 0;
    MPI_Status st;
    MPI_Test(&failure_req_, &flag, &st);
    if (!flag) return;
    broken_ = true;
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    const std::string msg(failure_buf_.data(), static_cast<std::size_t>(n));
    const std::size_t nl = msg.find('\n');
    // Tell the failed rank its notice arrived (it waits for that before it exits).
    static const char ack = 1;
    MPI_Request req;
    if (MPI_Isend(&ack, 1, MPI_BYTE, st.MPI_SOURCE, kAckTag, comm_, &req) == MPI_SUCCESS) MPI_Request_free(&req);
    ditto::detail::fail(op, "rank ", msg.substr(0, nl), " failed: ", nl == std::string::npos ? "" : msg.substr(nl + 1));
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, world_ = 1;
  bool owns_mpi_ = false, broken_ = false, finalized_ = false, failed_here_ = false;
  std::vector<char> failure_buf_;
  MPI_Request failure_req_ = MPI_REQUEST_NULL;
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport() { return std::make_unique<MpiTransport>(); }
bool mpi_built() { return true; }

}  // namespace ditto::distributed::detail
