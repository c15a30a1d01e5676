#include "process/compile_pool.h"

#include <sched.h>

#include <deque>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "gputune/error.h"
#include "process/ipc.h"

namespace gputune {

namespace {

// Frame types between the pool and its workers.
enum : uint32_t { kCompile = 1, kCompiled = 2, kFailed = 3 };

int worker_main(int fd, const CompilerFactory& factory) {
  std::unique_ptr<Compiler> compiler;
  uint32_t type = 0;
  std::string payload;
  while (ipc::read_frame(fd, &type, &payload)) {
    CompileRequest request;
    wire::Writer reply;
    uint32_t reply_type = kCompiled;
    try {
      wire::Reader reader(payload);
      wire::get(reader, &request);
      if (!compiler) compiler = factory();
      wire::put(reply, compiler->compile(request));
    } catch (const Error& e) {
      reply = wire::Writer();
      wire::put(reply, e);
      reply_type = kFailed;
    } catch (const std::exception& e) {
      reply = wire::Writer();
      wire::put(reply, Error(ErrorCode::kInternal, std::string("compiler: ") + e.what()));
      reply_type = kFailed;
    }
    if (!ipc::write_frame(fd, reply_type, reply.data())) return 0;
  }
  return 0;  // the pool closed the socket
}

}  // namespace

size_t usable_cpus() {
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) == 0 && CPU_COUNT(&mask) > 0) {
    return static_cast<size_t>(CPU_COUNT(&mask));
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

// --- CompilePool -------------------------------------------------------------------------

struct CompilePool::Impl {
  struct Worker {
    ipc::Child child;
    bool busy = false;
    uint64_t ticket = 0;
  };
  struct Job {
    uint64_t ticket;
    CompileRequest request;
  };

  CompilerFactory factory;
  std::shared_ptr<ModuleCache> cache;
  std::vector<Worker> workers;
  std::deque<Job> queue;
  std::unordered_map<uint64_t, CompileRequest> running;  // ticket -> request, for the cache
  std::vector<std::pair<uint64_t, CompiledKernel>> ready;
  std::unordered_set<uint64_t> cancelled;
  uint64_t next_ticket = 1;
  CompilePoolStats stats;

  void start(Worker* w) {
    const CompilerFactory* f = &factory;
    w->child = ipc::spawn([f](int fd) { return worker_main(fd, *f); });
    w->busy = false;
  }

  // Hands queued jobs to idle workers; a worker found dead is replaced and the job retried.
  void dispatch() {
    for (Worker& w : workers) {
      if (queue.empty()) return;
      if (w.busy) continue;
      Job job = std::move(queue.front());
      queue.pop_front();
      wire::Writer message;
      wire::put(message, job.request);
      if (!ipc::write_frame(w.child.fd, kCompile, message.data())) {
        ipc::kill_child(&w.child);
        start(&w);
        if (!ipc::write_frame(w.child.fd, kCompile, message.data())) {
          throw Error(ErrorCode::kInternal, "a new compiler process does not take work");
        }
      }
      w.busy = true;
      w.ticket = job.ticket;
      running.emplace(job.ticket, std::move(job.request));
    }
  }

  void finish(uint64_t ticket, CompiledKernel kernel, bool from_compiler) {
    auto it = running.find(ticket);
    if (from_compiler) {
      ++stats.compiled;
      stats.compile_s += kernel.compile_ms / 1e3;
      if (cache && it != running.end()) cache->save(it->second, kernel);
    }
    if (it != running.end()) running.erase(it);
    if (cancelled.erase(ticket) == 0) ready.emplace_back(ticket, std::move(kernel));
  }

  void receive(Worker* w) {
    uint32_t type = 0;
    std::string payload;
    const uint64_t ticket = w->ticket;
    w->busy = false;
    if (!ipc::read_frame(w->child.fd, &type, &payload)) {
      const int status = ipc::kill_child(&w->child);
      ++stats.crashes;
      start(w);
      CompiledKernel failed;
      failed.log = "the compiler process died compiling this variant (" +
                   ipc::describe_exit(status) + "); it was replaced";
      finish(ticket, std::move(failed), false);
      return;
    }
    wire::Reader reader(payload);
    if (type == kFailed) {
      running.erase(ticket);
      cancelled.erase(ticket);
      throw wire::get_error(reader);
    }
    CompiledKernel kernel;
    wire::get(reader, &kernel);
    finish(ticket, std::move(kernel), true);
  }
};

CompilePool::CompilePool(size_t workers, CompilerFactory factory,
                         std::shared_ptr<ModuleCache> cache)
    : impl_(std::make_unique<Impl>()) {
  impl_->factory = std::move(factory);
  impl_->cache = std::move(cache);
  impl_->workers.resize(workers == 0 ? usable_cpus() : workers);
  for (auto& w : impl_->workers) impl_->start(&w);
}

CompilePool::~CompilePool() {
  for (auto& w : impl_->workers) ipc::end_child(&w.child, 1.0);
}

size_t CompilePool::parallelism() const { return impl_->workers.size(); }

uint64_t CompilePool::submit(const CompileRequest& request) {
  const uint64_t ticket = impl_->next_ticket++;
  if (!request.refusal.empty()) {
    impl_->ready.emplace_back(ticket, refused_kernel(request));
    return ticket;
  }
  if (impl_->cache) {
    if (auto kernel = impl_->cache->load(request)) {
      ++impl_->stats.cache_hits;
      impl_->ready.emplace_back(ticket, std::move(*kernel));
      return ticket;
    }
  }
  impl_->queue.push_back({ticket, request});
  impl_->dispatch();
  return ticket;
}

std::vector<std::pair<uint64_t, CompiledKernel>> CompilePool::poll(int timeout_ms) {
  Impl& p = *impl_;
  p.dispatch();
  if (p.ready.empty()) {
    std::vector<int> fds;
    for (const auto& w : p.workers) {
      if (w.busy) fds.push_back(w.child.fd);
    }
    if (!fds.empty()) {
      for (int fd : ipc::readable(fds, timeout_ms)) {
        for (auto& w : p.workers) {
          if (w.busy && w.child.fd == fd) p.receive(&w);
        }
      }
      p.dispatch();
    }
  }
  std::vector<std::pair<uint64_t, CompiledKernel>> out;
  out.swap(p.ready);
  return out;
}

size_t CompilePool::pending() const {
  return impl_->queue.size() + impl_->running.size() + impl_->ready.size() -
         impl_->cancelled.size();
}

void CompilePool::cancel() {
  impl_->queue.clear();
  impl_->ready.clear();
  for (const auto& [ticket, request] : impl_->running) impl_->cancelled.insert(ticket);
}

CompiledKernel CompilePool::compile(const CompileRequest& request) {
  const uint64_t ticket = submit(request);
  std::vector<std::pair<uint64_t, CompiledKernel>> others;
  std::optional<CompiledKernel> mine;
  while (!mine) {
    for (auto& [t, kernel] : poll(-1)) {
      if (t == ticket) {
        mine = std::move(kernel);
      } else {
        others.emplace_back(t, std::move(kernel));
      }
    }
  }
  for (auto& o : others) impl_->ready.push_back(std::move(o));
  return std::move(*mine);
}

const CompilePoolStats& CompilePool::stats() const { return impl_->stats; }

std::vector<int> CompilePool::worker_pids() const {
  std::vector<int> pids;
  for (const auto& w : impl_->workers) pids.push_back(w.child.pid);
  return pids;
}

}  // namespace gputune
