// SPDX-License-Identifier: Apache-2.0
// The emulator's block runner: a kernel's threads as fibers on the host
// thread that drains the stream (Note [Emulated kernels] in
// include/cuda_emu_kernels.h).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_emu_kernels.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace tessera_cuda_emu {
namespace {

// ---- a context switch -------------------------------------------------------------
// A fiber is a stack and the stack pointer it was left at. On x86-64 a switch
// saves the callee-saved registers on the current stack and loads them from
// the other (a few nanoseconds); the floating-point control words are the
// host thread's, shared by its fibers, which never change them. Elsewhere
// ucontext, whose switches also set the signal mask (a system call).

using Entry = void (*)();

#if defined(__x86_64__)
extern "C" void tessera_emu_switch(void** save_sp, void* load_sp);
asm(R"(
    .pushsection .text
    .p2align 4
    .globl tessera_emu_switch
    .hidden tessera_emu_switch
    .type tessera_emu_switch, @function
tessera_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size tessera_emu_switch, .-tessera_emu_switch
    .popsection
)");

struct Context {
  void* sp = nullptr;
};
inline void switch_context(Context& from, Context& to) { tessera_emu_switch(&from.sp, to.sp); }
// A context that starts `entry` (which never returns) on [stack, stack + size).
inline void make_context(Context& c, char* stack, size_t size, Entry entry) {
  auto* top = reinterpret_cast<uint64_t*>(reinterpret_cast<uintptr_t>(stack + size) & ~uintptr_t{15});
  top[-1] = 0;                                  // entry's return address: none
  top[-2] = reinterpret_cast<uint64_t>(entry);  // where the switch returns to
  for (int r = 3; r <= 8; ++r) top[-r] = 0;     // rbp, rbx, r12-r15
  c.sp = top - 8;
}
#else
struct Context {
  ucontext_t uc;
};
inline void switch_context(Context& from, Context& to) { swapcontext(&from.uc, &to.uc); }
inline void make_context(Context& c, char* stack, size_t size, Entry entry) {
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = stack;
  c.uc.uc_stack.ss_size = size;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, entry, 0);
}
#endif

// ---- the runner --------------------------------------------------------------------

class BlockRunner {
 public:
  static BlockRunner& here() {
    static thread_local BlockRunner runner;
    return runner;
  }

  // Runs `body` as every thread of block `block_idx`; false (with `why`) when
  // the block could not complete.
  bool run_block(dim3 block, uint3 block_idx, const std::function<void()>& body, std::string& why) {
    n_ = static_cast<int>(block.x * block.y * block.z);
    if (block.x != dim_.x || block.y != dim_.y || block.z != dim_.z || index_.size() != static_cast<size_t>(n_)) {
      dim_ = block;
      index_.resize(static_cast<size_t>(n_));
      for (unsigned u = 0; u < static_cast<unsigned>(n_); ++u)
        index_[u] = uint3{u % block.x, (u / block.x) % block.y, u / (block.x * block.y)};
    }
    reverse_ = ((block_idx.x + block_idx.y + block_idx.z) & 1u) != 0;
    body_ = &body;
    next_ = 0;
    exited_ = 0;
    cursor_ = 0;
    failed_ = false;
    why_.clear();
    wait_.assign(static_cast<size_t>(n_), Wait::kNotStarted);
    holder_.assign(static_cast<size_t>(n_), -1);
    if (slots_.size() < 2 * static_cast<size_t>(n_)) slots_.resize(2 * static_cast<size_t>(n_));
    rounds_.assign(static_cast<size_t>(n_), 0);
    site_.assign(static_cast<size_t>(n_), Site{});
    if (abandoned_) renew_fibers();
    free_.clear();
    for (int f = static_cast<int>(fibers_.size()) - 1; f >= 0; --f) free_.push_back(f);
    blockIdx = block_idx;
    blockDim = block;
    // The fibers hand over to each other (pick_next) and come back here when
    // every thread has exited, or when the block is stuck.
    const int first = pick_next();
    if (first >= 0) {
      running_ = first;
      from_ = -1;
#if defined(__SANITIZE_ADDRESS__)
      __sanitizer_start_switch_fiber(&scheduler_fake_stack_, fibers_[static_cast<size_t>(first)].stack, kStack);
#endif
#if defined(__SANITIZE_THREAD__)
      if (scheduler_tsan_ == nullptr) scheduler_tsan_ = __tsan_get_current_fiber();
      __tsan_switch_to_fiber(fibers_[static_cast<size_t>(first)].tsan, 0);
#endif
      switch_context(scheduler_, fibers_[static_cast<size_t>(first)].context);
#if defined(__SANITIZE_ADDRESS__)
      __sanitizer_finish_switch_fiber(scheduler_fake_stack_, nullptr, nullptr);
#endif
      recycle();
    }
    if (failed_ || exited_ != n_) {
      abandoned_ = true;  // the waiting threads' stacks are dropped
      why = why_.empty() ? std::string("the block stopped with threads unfinished") : why_;
      return false;
    }
    return true;
  }

  void suspend_block(const char* file, int line) {
    site_[static_cast<size_t>(current_thread_)] = Site{file, line};
    suspend(Wait::kBlockBarrier);
  }
  bool in_kernel() const { return running_ >= 0; }

  // The running thread's __shfl_xor_sync. Slots alternate between two
  // banks, so one warp barrier per shuffle suffices: a lane that writes
  // shuffle k + 2's slot has passed shuffle k + 1's barrier, which every lane
  // reached after reading shuffle k's.
  uint64_t shuffle_xor(unsigned mask, uint64_t bits, int lane_mask, int width, const char* file, int line) {
    const int t = current_thread_, lane = t % 32, warp0 = t - lane;
    const int lanes = std::min(32, n_ - warp0);
    if (mask != (lanes == 32 ? 0xFFFFFFFFu : (1u << lanes) - 1u) || width != 32) {
      std::fprintf(stderr, "cuda_emu: __shfl_xor_sync(mask 0x%x, width %d): only whole warps are emulated\n", mask, width);
      kernel_failed().store(true);
      return bits;
    }
    const unsigned bank = rounds_[static_cast<size_t>(t)]++ & 1u;
    slots_[2 * static_cast<size_t>(t) + bank] = bits;
    site_[static_cast<size_t>(t)] = Site{file, line};
    suspend(Wait::kWarpBarrier);  // every lane has written
    const int src = warp0 + (lane ^ lane_mask);
    return src < warp0 + lanes ? slots_[2 * static_cast<size_t>(src) + bank] : bits;
  }

  BlockRunner(const BlockRunner&) = delete;
  BlockRunner& operator=(const BlockRunner&) = delete;

 private:
  enum class Wait : uint8_t { kNotStarted, kRunning, kBlockBarrier, kWarpBarrier, kReleased, kExited };
  static constexpr size_t kStack = size_t{64} << 10;  // bytes per fiber, its lowest page a guard
  static constexpr int kMaxFibers = 1025;             // 1024 waiting threads + one starting the rest

  struct Fiber {
    Context context;
    char* stack = nullptr;
    bool started = false;  // parked in fiber_main once started (see there)
#if defined(__SANITIZE_ADDRESS__)
    void* asan_fake_stack = nullptr;  // its fake frames while it waits
#endif
#if defined(__SANITIZE_THREAD__)
    void* tsan = nullptr;
#endif
  };

  BlockRunner() = default;
  ~BlockRunner() {
#if defined(__SANITIZE_THREAD__)
    for (Fiber& f : fibers_) __tsan_destroy_fiber(f.tsan);
#endif
    if (stacks_ != nullptr) munmap(stacks_, kStack * kMaxFibers);
  }

  int order(int k) const { return reverse_ ? n_ - 1 - k : k; }

  void set_thread(int t) {
    current_thread_ = t;
    *thread_idx_ = index_[static_cast<size_t>(t)];
  }

  // What runs next: a fresh fiber for the threads not started yet, else the
  // fiber of the next released thread (in run order), else, once nothing can
  // run, the barriers that can be lifted are; -1: back to run_block (every
  // thread exited, or the block is stuck: failed_ and why_).
  int pick_next() {
    if (next_ < n_) return take_fiber();
    for (;;) {
      while (cursor_ < n_ && wait_[static_cast<size_t>(order(cursor_))] != Wait::kReleased) ++cursor_;
      if (cursor_ < n_) {
        const int t = order(cursor_);
        wait_[static_cast<size_t>(t)] = Wait::kRunning;
        set_thread(t);
        return holder_[static_cast<size_t>(t)];
      }
      if (exited_ == n_ || !release()) return -1;
      cursor_ = 0;
    }
  }

  // A fiber, set to run the threads not started yet; -1 (failed_) if none.
  int take_fiber() {
    if (free_.empty()) {
      if (stacks_ == nullptr) {
        void* p = mmap(nullptr, kStack * kMaxFibers, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
          failed_ = true;
          why_ = "cannot map the fibers' stacks";
          return -1;
        }
        stacks_ = static_cast<char*>(p);
      }
      Fiber f;
      f.stack = stacks_ + kStack * fibers_.size();
      mprotect(f.stack, static_cast<size_t>(sysconf(_SC_PAGESIZE)), PROT_NONE);
#if defined(__SANITIZE_THREAD__)
      f.tsan = __tsan_create_fiber(0);
#endif
      fibers_.push_back(f);
      free_.push_back(static_cast<int>(fibers_.size()) - 1);
    }
    const int id = free_.back();
    free_.pop_back();
    Fiber& f = fibers_[static_cast<size_t>(id)];
    if (!f.started) {
      f.started = true;
#if defined(__SANITIZE_ADDRESS__)
      f.asan_fake_stack = nullptr;
#endif
      // Stack tops 64 KiB apart would all fall in the same cache sets: stagger them.
      make_context(f.context, f.stack, kStack - static_cast<size_t>(id % 61) * 64, &BlockRunner::fiber_main);
    }
    return id;
  }

  // After a block was abandoned, its fibers stopped mid-kernel: each starts
  // afresh, with fresh sanitizer states.
  void renew_fibers() {
    for (Fiber& f : fibers_) {
      f.started = false;
#if defined(__SANITIZE_ADDRESS__)
      __asan_unpoison_memory_region(f.stack + 4096, kStack - 4096);
#endif
#if defined(__SANITIZE_THREAD__)
      __tsan_destroy_fiber(f.tsan);
      f.tsan = __tsan_create_fiber(0);
#endif
    }
    abandoned_ = false;
  }

  // A fiber that parked is free again once it has been left.
  void recycle() {
    if (finished_ < 0) return;
    free_.push_back(finished_);
    finished_ = -1;
  }

  // A fiber runs the threads not started yet, one after another, then parks
  // (hands over to whatever runs next) until it is taken again, for this
  // block or a later one: it never returns, so its frames stay balanced.
  [[noreturn]] static void fiber_main() {
    BlockRunner& r = here();
    r.arrived();
    for (;;) {
      while (r.next_ < r.n_) {
        const int t = r.order(r.next_++);
        r.holder_[static_cast<size_t>(t)] = r.running_;
        r.wait_[static_cast<size_t>(t)] = Wait::kRunning;
        r.set_thread(t);
        (*r.body_)();
        r.wait_[static_cast<size_t>(r.current_thread_)] = Wait::kExited;
        ++r.exited_;
      }
      r.finished_ = r.running_;
      r.hand_over(r.pick_next());
    }
  }

  // In a fiber, once something switched to it.
  void arrived() {
#if defined(__SANITIZE_ADDRESS__)
    const void* bottom = nullptr;
    size_t size = 0;
    __sanitizer_finish_switch_fiber(fibers_[static_cast<size_t>(running_)].asan_fake_stack, &bottom, &size);
    if (from_ < 0) {  // from run_block: its stack, to return to
      scheduler_stack_ = bottom;
      scheduler_stack_size_ = size;
    }
#endif
    recycle();
  }

  // The running fiber hands the host thread to fiber `next` (-1: run_block).
  void hand_over(int next) {
    const int me = running_;
    if (next == me) return;  // its own thread was released first
    Fiber& f = fibers_[static_cast<size_t>(me)];
    Context& to = next >= 0 ? fibers_[static_cast<size_t>(next)].context : scheduler_;
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_start_switch_fiber(&f.asan_fake_stack, next >= 0 ? fibers_[static_cast<size_t>(next)].stack : scheduler_stack_,
                                   next >= 0 ? kStack : scheduler_stack_size_);
#endif
#if defined(__SANITIZE_THREAD__)
    __tsan_switch_to_fiber(next >= 0 ? fibers_[static_cast<size_t>(next)].tsan : scheduler_tsan_, 0);
#endif
    from_ = me;
    running_ = next;
    switch_context(f.context, to);
    arrived();  // running_ == me again: whoever switched here set it
  }

  void suspend(Wait w) {
    wait_[static_cast<size_t>(current_thread_)] = w;
    hand_over(pick_next());  // whoever resumes this thread set threadIdx for it
  }

  // Nothing can run: lift the barriers every thread concerned has reached.
  // False (failed_, why_) when the block is stuck.
  bool release() {
    bool opened = false;
    for (int w0 = 0; w0 < n_; w0 += 32) {
      const int w1 = std::min(n_, w0 + 32);
      int at_warp = 0, exited = 0;
      for (int t = w0; t < w1; ++t) {
        at_warp += wait_[static_cast<size_t>(t)] == Wait::kWarpBarrier;
        exited += wait_[static_cast<size_t>(t)] == Wait::kExited;
      }
      if (at_warp == 0) continue;
      if (at_warp == w1 - w0) {
        if (!same_site(w0, w1, Wait::kWarpBarrier, "lanes of warp " + std::to_string(w0 / 32) + " wait at different shuffles"))
          return false;
        for (int t = w0; t < w1; ++t) wait_[static_cast<size_t>(t)] = Wait::kReleased;
        opened = true;
      } else if (exited > 0) {
        failed_ = true;
        why_ = "warp " + std::to_string(w0 / 32) + ": " + std::to_string(exited) +
               " lane(s) exited before a full-warp shuffle that the others wait at";
        return false;
      }
    }
    if (opened) return true;
    const bool at_block = std::any_of(wait_.begin(), wait_.end(), [](Wait w) { return w == Wait::kBlockBarrier; });
    const bool at_warp = std::any_of(wait_.begin(), wait_.end(), [](Wait w) { return w == Wait::kWarpBarrier; });
    if (at_block && at_warp) {
      failed_ = true;
      why_ = "some threads wait at __syncthreads while others wait at a warp shuffle (a hang on a GPU)";
      return false;
    }
    if (!same_site(0, n_, Wait::kBlockBarrier, "threads wait at different __syncthreads")) return false;
    for (Wait& w : wait_)
      if (w == Wait::kBlockBarrier) w = Wait::kReleased;  // exited threads count as arrived
    return true;
  }

  // Whether the threads [t0, t1) waiting in `w` wait at one call site; else
  // failed_, and why_ names two of them.
  bool same_site(int t0, int t1, Wait w, const std::string& what) {
    const Site* first = nullptr;
    for (int t = t0; t < t1; ++t) {
      if (wait_[static_cast<size_t>(t)] != w) continue;
      const Site& s = site_[static_cast<size_t>(t)];
      if (first == nullptr) {
        first = &s;
      } else if (s.line != first->line || std::strcmp(s.file, first->file) != 0) {
        failed_ = true;
        why_ = what + " (" + first->file + ":" + std::to_string(first->line) + " and " + s.file + ":" + std::to_string(s.line) +
               "; a hang or undefined on a GPU)";
        return false;
      }
    }
    return true;
  }

  char* stacks_ = nullptr;
  std::vector<Fiber> fibers_;
  std::vector<int> free_;
  Context scheduler_;  // run_block's
  int running_ = -1;   // the fiber running now; -1: none (not inside a kernel)
  int from_ = -1;      // the fiber that switched to the running one; -1: run_block
  int finished_ = -1;  // a fiber that parked, to free once left
  bool abandoned_ = false, failed_ = false;
  std::string why_;
  int n_ = 0, next_ = 0, exited_ = 0, cursor_ = 0, current_thread_ = 0;
  dim3 dim_{0, 0, 0};
  std::vector<uint3> index_;         // thread -> its threadIdx, for dim_
  uint3* thread_idx_ = &threadIdx;  // this host thread's threadIdx
  bool reverse_ = false;
  const std::function<void()>* body_ = nullptr;
  std::vector<Wait> wait_;
  std::vector<int> holder_;       // thread -> the fiber it runs or waits in
  std::vector<uint64_t> slots_;   // two per thread: shuffles
  std::vector<uint32_t> rounds_;  // per thread: shuffles done
  struct Site {
    const char* file = "";
    int line = 0;
  };
  std::vector<Site> site_;  // per thread: the barrier or shuffle it waits at
#if defined(__SANITIZE_ADDRESS__)
  void* scheduler_fake_stack_ = nullptr;
  const void* scheduler_stack_ = nullptr;
  size_t scheduler_stack_size_ = 0;
#endif
#if defined(__SANITIZE_THREAD__)
  void* scheduler_tsan_ = nullptr;
#endif
};

BlockRunner& runner_in_kernel(const char* what) {
  BlockRunner& r = BlockRunner::here();
  if (!r.in_kernel()) {
    std::fprintf(stderr, "cuda_emu: %s called outside a kernel\n", what);
    kernel_failed().store(true);
  }
  return r;
}

}  // namespace

void run_grid(const char* kernel, dim3 grid, dim3 block, const std::function<void()>& body) {
  if (kernel_failed().load()) return;  // a failed context runs nothing more
  BlockRunner& runner = BlockRunner::here();
  gridDim = grid;
  std::string why;
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x)
        if (!runner.run_block(block, uint3{x, y, z}, body, why)) {
          std::fprintf(stderr, "cuda_emu: %s, block (%u, %u, %u): %s\n", kernel, x, y, z, why.c_str());
          kernel_failed().store(true);
          return;
        }
}

void block_barrier(const char* file, int line) {
  BlockRunner& r = runner_in_kernel("__syncthreads");
  if (r.in_kernel()) r.suspend_block(file, line);
}
uint64_t shuffle_xor(unsigned mask, uint64_t bits, int lane_mask, int width, const char* file, int line) {
  BlockRunner& r = runner_in_kernel("__shfl_xor_sync");
  return r.in_kernel() ? r.shuffle_xor(mask, bits, lane_mask, width, file, line) : bits;
}

}  // namespace tessera_cuda_emu
