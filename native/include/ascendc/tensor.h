/*
 * aiocann's Ascend C layer, part 2: tensors and the unified buffer's allocator (tier 1).
 *
 * GlobalTensor is a typed view of global memory (device memory). LocalTensor is a value type
 * naming a piece of the core's unified buffer (UB): its address, its element count and the end
 * of the buffer it was cut from, so every API call can check the operand stays in its buffer.
 * TPipe carves the UB into the buffers of queues (TQue) and scratch buffers (TBuf), one after
 * another, as the device's TPipe does; TQue tracks each buffer's state through FREE -> ALLOC ->
 * ENQUE -> DEQUE -> FREE and fails the launch on a step out of that order.
 *
 * The rules enforced here, each with its source (docs/fidelity.md has the table):
 *   InitBuffer: len rounded up to 32 bytes; num >= 1; at most 64 buffers per TPipe; the
 *     buffers must fit in the UB (asc-devkit TPipe/InitBuffer);
 *   AllocTensor with no free buffer: the device waits forever, the simulator fails the launch;
 *   at most 8 tensors allocated at once per TPosition (4 on the 910A) (TQue/AllocTensor);
 *   EnQue more than `depth` times without a DeQue (TQue: depth), DeQue of an empty queue,
 *   EnQue/FreeTensor of a buffer in the wrong state or of another queue;
 *   GetValue/SetValue outside the tensor's buffer.
 */
#ifndef AIOCANN_ASCENDC_TENSOR_H_
#define AIOCANN_ASCENDC_TENSOR_H_

#include "ascendc/base.h"

namespace AscendC {

template <typename T> class LocalTensor;
class TPipe;
namespace aclsim {
template <class Op, typename T> struct TensorExpr; /* `dst = a + b` (vector.h) */
}

/* ------------------------------------------------------------------ GlobalTensor */

template <typename T> class GlobalTensor {
public:
    using PrimType = T;
    GlobalTensor() = default;
    void SetGlobalBuffer(__gm__ T *buffer, uint64_t bufferSize)
    {
        address_ = buffer;
        size_ = bufferSize;
    }
    void SetGlobalBuffer(__gm__ T *buffer)
    {
        address_ = buffer;
        size_ = 0;
    }
    GlobalTensor operator[](uint64_t offset) const
    {
        GlobalTensor g;
        g.address_ = address_ + offset;
        g.size_ = offset < size_ ? size_ - offset : 0;
        return g;
    }
    T GetValue(uint64_t offset) const { return address_[offset]; }
    void SetValue(uint64_t offset, T value) const { address_[offset] = value; }
    T &operator()(uint64_t offset) const { return address_[offset]; }
    uint64_t GetSize() const { return size_; }
    __gm__ T *GetPhyAddr() const { return address_; }
    __gm__ T *GetPhyAddr(uint64_t offset) const { return address_ + offset; }
    template <typename U> GlobalTensor<U> ReinterpretCast() const
    {
        GlobalTensor<U> g;
        g.SetGlobalBuffer((__gm__ U *)address_, size_ * sizeof(T) / sizeof(U));
        return g;
    }
    template <typename H> void SetL2CacheHint(H) {} /* the host has no L2 to steer */
    void SetShapeInfo(...) {}

    __gm__ T *address_ = nullptr;

private:
    uint64_t size_ = 0;
};

/* ------------------------------------------------------------------ LocalTensor */

template <typename T> class LocalTensor {
public:
    using PrimType = T;
    LocalTensor() = default;
    /* The static-tensor style: tileSize elements at UB offset addr (32-byte aligned, inside the
     * UB: checked where the tensor is used, against the whole UB as its buffer). */
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize)
    {
        uint8_t *base = aclsim::UbBase();
        if ((uint64_t)addr + (uint64_t)tileSize * sizeof(T) > aclsim::t_ub_size)
            aclsim::Fail("UB capacity", "LocalTensor(%s, %u, %u): past the %llu-byte unified buffer", PositionName(pos),
                         addr, tileSize, (unsigned long long)aclsim::t_ub_size);
        addr_ = (T *)(void *)(base + addr);
        size_ = tileSize;
        end_ = base + aclsim::t_ub_size;
        pos_ = pos;
    }

    LocalTensor operator[](uint32_t offset) const
    {
        LocalTensor t = *this;
        t.addr_ = addr_ + offset;
        t.size_ = offset < size_ ? size_ - offset : 0;
        return t;
    }
    uint32_t GetSize() const { return size_; }
    uint32_t GetLength() const { return size_ * (uint32_t)sizeof(T); }
    void SetSize(uint32_t size) { size_ = size; }
    TPosition GetPosition() const { return pos_; }
    uint64_t GetPhyAddr() const { return aclsim::UbOffset(addr_); }
    uint64_t GetPhyAddr(uint32_t offset) const { return aclsim::UbOffset(addr_ + offset); }
    void SetUserTag(int32_t tag) { tag_ = tag; }
    int32_t GetUserTag() const { return tag_; }
    void SetAddrWithOffset(const LocalTensor &src, uint32_t offset) { *this = src[offset]; }

    T GetValue(uint32_t index) const
    {
        Check(index, "GetValue");
        return addr_[index];
    }
    void SetValue(uint32_t index, T value) const
    {
        Check(index, "SetValue");
        addr_[index] = value;
    }
    T &operator()(uint32_t index) const
    {
        Check(index, "operator()");
        return addr_[index];
    }
    /* The whole-tensor forms: `dst = src0 + src1` computes dst.GetSize() elements. */
    template <class Op> LocalTensor &operator=(const aclsim::TensorExpr<Op, T> &e)
    {
        e.Into(*this);
        return *this;
    }
    LocalTensor &operator=(const LocalTensor &) = default;
    LocalTensor(const LocalTensor &) = default;

    template <typename U> LocalTensor<U> ReinterpretCast() const
    {
        LocalTensor<U> t;
        t.addr_ = (U *)(void *)addr_;
        t.size_ = (uint32_t)((uint64_t)size_ * sizeof(T) / sizeof(U));
        t.end_ = end_;
        t.pos_ = pos_;
        return t;
    }

    /* The representation (public, so the API functions and the other tensor types read it
     * directly; kernels use the methods). */
    T *addr_ = nullptr;
    uint32_t size_ = 0;      /* elements from addr_ */
    uint8_t *end_ = nullptr; /* end of the buffer addr_ lies in */
    TPosition pos_ = TPosition::VECCALC;
    int32_t tag_ = 0;

private:
    void Check(uint32_t index, const char *what) const
    {
        if (!addr_)
            aclsim::Fail("operand range", "LocalTensor::%s on a tensor with no buffer (not from AllocTensor/Get)", what);
        if ((const uint8_t *)(addr_ + index) + sizeof(T) > end_)
            aclsim::Fail("operand range", "LocalTensor::%s(%u): UB offset %llu is past the end of the tensor's buffer (%llu)",
                         what, index, (unsigned long long)aclsim::UbOffset(addr_ + index),
                         (unsigned long long)aclsim::UbOffset(end_));
    }
};

/* ------------------------------------------------------------------ TPipe */

namespace aclsim {

enum BufState : uint8_t { BUF_FREE = 0, BUF_ALLOC, BUF_ENQUE, BUF_DEQUE };

inline const char *StateName(uint8_t s)
{
    switch (s) {
    case BUF_FREE: return "FREE";
    case BUF_ALLOC: return "ALLOC";
    case BUF_ENQUE: return "ENQUE";
    default: return "DEQUE";
    }
}

inline thread_local TPipe *t_pipe = nullptr; /* GetTPipePtr() */

constexpr uint32_t kMaxQueBuffers = 8; /* event IDs per position on A2/A3 (TQue Buffer limit) */
constexpr uint32_t kMaxPipeBuffers = 64;

/* What TPipe allocates from: the UB positions (VECIN, VECOUT, VECCALC). */
inline bool IsUbPosition(TPosition p)
{
    return p == TPosition::VECIN || p == TPosition::VECOUT || p == TPosition::VECCALC;
}

/* The non-template part of a queue: its buffers and their states. */
struct QueCore {
    TPipe *pipe = nullptr;
    TPosition pos = TPosition::VECIN;
    int32_t depth = 1;
    uint8_t num = 0;
    uint32_t len = 0; /* bytes per buffer (a multiple of 32) */
    uint8_t *bufs[kMaxQueBuffers] = {};
    uint8_t state[kMaxQueBuffers] = {};
    uint8_t fifo[kMaxQueBuffers] = {};
    uint8_t head = 0, count = 0, next = 0;

    int Find(const void *addr) const
    {
        for (int i = 0; i < num; i++)
            if (bufs[i] == addr)
                return i;
        return -1;
    }
};

} // namespace aclsim

class TPipe {
public:
    TPipe() { Bind(); }
    ~TPipe()
    {
        if (aclsim::t_pipe == this)
            aclsim::t_pipe = nullptr;
    }
    TPipe(const TPipe &) = delete;
    TPipe &operator=(const TPipe &) = delete;

    /* Buffers for a queue: num buffers of len bytes (rounded up to 32), one after another. */
    template <class Q> bool InitBuffer(Q &que, uint32_t num, uint32_t len)
    {
        aclsim::QueCore &q = que.core_;
        if (!aclsim::IsUbPosition(que.Position()))
            aclsim::Fail("unsupported position",
                         "InitBuffer: a queue on %s; the simulator has the vector unit's UB positions (VECIN, VECOUT, "
                         "VECCALC) only",
                         PositionName(que.Position()));
        if (num == 0 || num > aclsim::kMaxQueBuffers)
            aclsim::Fail("InitBuffer", "num is %u: a queue has 1 to %u buffers", num, aclsim::kMaxQueBuffers);
        uint32_t rounded = (uint32_t)(((uint64_t)len + 31) & ~(uint64_t)31);
        uint8_t *first = Carve((uint64_t)num * rounded, num, "InitBuffer(que)");
        q.pipe = this;
        q.pos = que.Position();
        q.depth = que.Depth();
        q.num = (uint8_t)num;
        q.len = rounded;
        for (uint32_t i = 0; i < num; i++) {
            q.bufs[i] = first + (uint64_t)i * rounded;
            q.state[i] = aclsim::BUF_FREE;
        }
        q.head = q.count = q.next = 0;
        return true;
    }

    /* A scratch buffer (TBuf) of len bytes (rounded up to 32). */
    template <class B> auto InitBuffer(B &buf, uint32_t len) -> decltype(buf.tbuf_len_, true)
    {
        if (!aclsim::IsUbPosition(buf.Position()))
            aclsim::Fail("unsupported position",
                         "InitBuffer: a TBuf on %s; the simulator has the vector unit's UB positions (VECIN, VECOUT, "
                         "VECCALC) only",
                         PositionName(buf.Position()));
        uint32_t rounded = (uint32_t)(((uint64_t)len + 31) & ~(uint64_t)31);
        buf.tbuf_addr_ = Carve(rounded, 1, "InitBuffer(tbuf)");
        buf.tbuf_len_ = rounded;
        buf.pipe_ = this;
        return true;
    }

    /* Gives the buffers back (the queues and TBufs initialised from this pipe must not be used
     * again until InitBuffer gives them new ones). */
    void Destroy() { Reset(); }
    void Reset()
    {
        used_ = 0;
        buffers_ = 0;
        memset(allocated_, 0, sizeof allocated_);
    }
    void Init() { Reset(); }

    template <HardEvent e> event_t AllocEventID() { return EVENT_ID0; }
    template <HardEvent e> event_t FetchEventID() { return EVENT_ID0; }
    template <HardEvent e> void ReleaseEventID(event_t) {}
    event_t FetchEventID(HardEvent) { return EVENT_ID0; }
    uint64_t GetBaseAddr(int8_t) const { return 0; }

    /* Tensors allocated at once on one position (AllocTensor's limit). */
    void NoteAlloc(TPosition pos)
    {
        uint32_t &n = allocated_[(int)pos];
        uint32_t limit = aclsim::MaxAllocPerPosition();
        if (n + 1 > limit)
            aclsim::Fail("tensors per position",
                         "AllocTensor: a %u-th tensor allocated at once on %s; the chip has %u (its event IDs): on the "
                         "device the allocation fails or hangs",
                         n + 1, PositionName(pos), limit);
        n++;
    }
    void NoteFree(TPosition pos)
    {
        if (allocated_[(int)pos])
            allocated_[(int)pos]--;
    }

private:
    void Bind()
    {
        const aclsimChip *chip = aclsim::Chip();
        const aclsim_kernel_rt *rt = aclsim::Rt();
        ub_ = rt->ub ? (uint8_t *)rt->ub() : nullptr;
        if (!ub_)
            aclsim::Fail("simulator", "no unified buffer for this core (out of host memory)");
        ub_size_ = chip->ub_size;
        aclsim::t_ub_base = ub_;
        aclsim::t_ub_size = ub_size_;
        aclsim::t_pipe = this;
        aclsim::ResetCoreRegisters();
        Reset();
    }

    uint8_t *Carve(uint64_t bytes, uint32_t count, const char *what)
    {
        if (buffers_ + count > aclsim::kMaxPipeBuffers)
            aclsim::Fail("TPipe buffers", "%s: %u buffers in one TPipe; at most %u", what, buffers_ + count,
                         aclsim::kMaxPipeBuffers);
        if (used_ + bytes > ub_size_)
            aclsim::Fail("UB capacity", "%s: %llu bytes more at UB offset %llu pass the %s's %llu-byte unified buffer", what,
                         (unsigned long long)bytes, (unsigned long long)used_, aclsim::Chip()->soc_name,
                         (unsigned long long)ub_size_);
        uint8_t *p = ub_ + used_;
        used_ += bytes;
        buffers_ += count;
        return p;
    }

    uint8_t *ub_ = nullptr;
    uint64_t ub_size_ = 0;
    uint64_t used_ = 0;
    uint32_t buffers_ = 0;
    uint32_t allocated_[(int)TPosition::MAX + 1] = {};
};

/* The block's TPipe (the last one constructed on this core thread), as the device's global
 * pipe pointer. */
inline TPipe *GetTPipePtr() { return aclsim::t_pipe; }

/* ------------------------------------------------------------------ TQue */

/* TQue<pos, depth>: `depth` EnQue calls may follow each other without a DeQue. */
template <TPosition pos, int32_t depth = 1, auto mask = 0> class TQue {
public:
    TQue() = default;
    static constexpr TPosition Position() { return pos; }
    static constexpr int32_t Depth() { return depth; }

    template <typename T> LocalTensor<T> AllocTensor()
    {
        Ready("AllocTensor");
        aclsim::QueCore &q = core_;
        int pick = -1;
        for (int k = 0; k < q.num; k++) {
            int i = (q.next + k) % q.num;
            if (q.state[i] == aclsim::BUF_FREE) {
                pick = i;
                break;
            }
        }
        if (pick < 0)
            aclsim::Fail("queue order",
                         "AllocTensor on a %s queue whose %u buffers are all in use (none FREE): on the device it waits "
                         "forever",
                         PositionName(pos), q.num);
        q.pipe->NoteAlloc(pos);
        q.state[pick] = aclsim::BUF_ALLOC;
        q.next = (uint8_t)((pick + 1) % q.num);
        return Tensor<T>(pick);
    }
    template <typename T> void AllocTensor(LocalTensor<T> &tensor) { tensor = AllocTensor<T>(); }

    template <typename T> bool EnQue(const LocalTensor<T> &tensor)
    {
        Ready("EnQue");
        aclsim::QueCore &q = core_;
        int i = Own(tensor.addr_, "EnQue");
        if (q.state[i] != aclsim::BUF_ALLOC)
            aclsim::Fail("queue order", "EnQue of a %s buffer in state %s; only an ALLOC buffer (from AllocTensor) may be "
                         "enqueued (FREE -> ALLOC -> ENQUE -> DEQUE -> FREE)",
                         PositionName(pos), aclsim::StateName(q.state[i]));
        if ((int32_t)q.count >= (depth > 0 ? depth : 1))
            aclsim::Fail("queue depth", "EnQue on a %s queue of depth %d that already holds %u tensors (no DeQue between)",
                         PositionName(pos), (int)depth, q.count);
        q.fifo[(q.head + q.count) % aclsim::kMaxQueBuffers] = (uint8_t)i;
        q.count++;
        q.state[i] = aclsim::BUF_ENQUE;
        return true;
    }
    template <TPosition srcPos, TPosition dstPos, typename T> bool EnQue(const LocalTensor<T> &tensor)
    {
        return EnQue(tensor);
    }

    template <typename T> LocalTensor<T> DeQue()
    {
        Ready("DeQue");
        aclsim::QueCore &q = core_;
        if (q.count == 0)
            aclsim::Fail("queue order", "DeQue of an empty %s queue (nothing enqueued): on the device it waits forever",
                         PositionName(pos));
        int i = q.fifo[q.head];
        q.head = (uint8_t)((q.head + 1) % aclsim::kMaxQueBuffers);
        q.count--;
        q.state[i] = aclsim::BUF_DEQUE;
        return Tensor<T>(i);
    }
    template <typename T> void DeQue(LocalTensor<T> &tensor) { tensor = DeQue<T>(); }
    template <TPosition srcPos, TPosition dstPos, typename T> LocalTensor<T> DeQue() { return DeQue<T>(); }

    template <typename T> void FreeTensor(const LocalTensor<T> &tensor)
    {
        Ready("FreeTensor");
        aclsim::QueCore &q = core_;
        int i = Own(tensor.addr_, "FreeTensor");
        if (q.state[i] != aclsim::BUF_ALLOC && q.state[i] != aclsim::BUF_DEQUE)
            aclsim::Fail("queue order", "FreeTensor of a %s buffer in state %s; only an ALLOC or DEQUE buffer may be freed",
                         PositionName(pos), aclsim::StateName(q.state[i]));
        q.state[i] = aclsim::BUF_FREE;
        q.pipe->NoteFree(pos);
    }

    bool HasTensorInQue() const { return core_.count > 0; }
    int32_t GetTensorCountInQue() const { return core_.count; }
    bool VacantInQue() const { return (int32_t)core_.count < (depth > 0 ? depth : 1); }
    bool HasIdleBuffer() const
    {
        for (int i = 0; i < core_.num; i++)
            if (core_.state[i] == aclsim::BUF_FREE)
                return true;
        return false;
    }
    void FreeAllEvent() {}

    aclsim::QueCore core_;

private:
    void Ready(const char *what) const
    {
        if (!core_.pipe)
            aclsim::Fail("queue order", "%s on a %s queue that has no buffers (TPipe::InitBuffer first)", what,
                         PositionName(pos));
    }
    int Own(const void *addr, const char *what) const
    {
        int i = core_.Find(addr);
        if (i < 0)
            aclsim::Fail("queue order", "%s of a tensor that is not one of this %s queue's buffers (UB offset %llu)", what,
                         PositionName(pos), (unsigned long long)aclsim::UbOffset(addr));
        return i;
    }
    template <typename T> LocalTensor<T> Tensor(int i) const
    {
        LocalTensor<T> t;
        t.addr_ = (T *)(void *)core_.bufs[i];
        t.size_ = core_.len / (uint32_t)sizeof(T);
        t.end_ = core_.bufs[i] + core_.len;
        t.pos_ = pos;
        return t;
    }
};

template <TPosition src, TPosition dst, int32_t depth = 1, auto mask = 0>
class TQueBind : public TQue<src, depth, mask> {};

/* ------------------------------------------------------------------ TBuf */

template <TPosition pos = TPosition::VECCALC> class TBuf {
public:
    TBuf() = default;
    static constexpr TPosition Position() { return pos; }

    template <typename T> LocalTensor<T> Get() { return Get<T>(tbuf_len_ / (uint32_t)sizeof(T)); }
    template <typename T> LocalTensor<T> Get(uint32_t len)
    {
        Ready();
        if ((uint64_t)len * sizeof(T) > tbuf_len_)
            aclsim::Fail("operand range", "TBuf::Get(%u): %llu bytes from a %u-byte buffer", len,
                         (unsigned long long)len * sizeof(T), tbuf_len_);
        return Make<T>(tbuf_addr_, len);
    }
    template <typename T> LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset)
    {
        Ready();
        if ((uint64_t)bufOffset + (uint64_t)size * sizeof(T) > tbuf_len_)
            aclsim::Fail("operand range", "TBuf::GetWithOffset(%u, %u) passes the end of a %u-byte buffer", size, bufOffset,
                         tbuf_len_);
        if (bufOffset % 32)
            aclsim::Fail("UB alignment", "TBuf::GetWithOffset: offset %u is not a multiple of 32 bytes", bufOffset);
        return Make<T>(tbuf_addr_ + bufOffset, size);
    }

    uint8_t *tbuf_addr_ = nullptr;
    uint32_t tbuf_len_ = 0;
    TPipe *pipe_ = nullptr;

private:
    void Ready() const
    {
        if (!pipe_)
            aclsim::Fail("operand range", "TBuf::Get on a TBuf that has no buffer (TPipe::InitBuffer first)");
    }
    template <typename T> LocalTensor<T> Make(uint8_t *addr, uint32_t len) const
    {
        LocalTensor<T> t;
        t.addr_ = (T *)(void *)addr;
        t.size_ = len;
        t.end_ = tbuf_addr_ + tbuf_len_;
        t.pos_ = pos;
        return t;
    }
};

/* ------------------------------------------------------------------ SyncAll */

/* Every block of the launch waits here until all have arrived (核间同步, SyncAll). The blocks
 * must all be running at once: a launch with more blocks than the device runs at a time fails
 * ("SyncAll"; the device hangs). The software form's workspaces are not needed here; a
 * usedCores other than 0 or the block count is not simulated. */
template <bool isAIVOnly = true> inline void SyncAll()
{
    const aclsim_kernel_rt *rt = aclsim::Rt();
    if (!rt || rt->version < 2 || !rt->sync_all)
        aclsim::Fail("SyncAll", "the simulator has no SyncAll (rebuild aiocann)");
    rt->sync_all();
}
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t> &gmWorkspace, const LocalTensor<int32_t> &ubWorkspace,
                    const int32_t usedCores = 0)
{
    (void)gmWorkspace;
    (void)ubWorkspace;
    if (usedCores != 0 && usedCores != (int32_t)::GetBlockNum())
        aclsim::Fail("SyncAll", "usedCores %d of a %lld-block launch is not simulated", (int)usedCores,
                     (long long)::GetBlockNum());
    SyncAll<isAIVOnly>();
}

/* ------------------------------------------------------------------ LocalMemAllocator */

enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };

/* The newer way to the UB: tensors carved in order from offset 0 (rounded up to 32 bytes each),
 * without queues. One per physical memory in a kernel; not to be mixed with a TPipe's buffers
 * (the documentation's rule: both start at offset 0). Only the UB is simulated. */
template <Hardware hard = Hardware::UB> class LocalMemAllocator {
public:
    LocalMemAllocator()
    {
        static_assert(hard == Hardware::UB, "the simulator has the vector unit's unified buffer (Hardware::UB) only");
        const aclsimChip *chip = aclsim::Chip();
        base_ = aclsim::Rt()->ub ? (uint8_t *)aclsim::Rt()->ub() : nullptr;
        if (!base_)
            aclsim::Fail("simulator", "no unified buffer for this core (out of host memory)");
        size_ = chip->ub_size;
        aclsim::t_ub_base = base_;
        aclsim::t_ub_size = size_;
        aclsim::ResetCoreRegisters();
    }
    uint32_t GetCurAddr() const { return (uint32_t)used_; }

    template <typename T, uint32_t tileSize> LocalTensor<T> Alloc() { return Carve<T>(tileSize); }
    template <TPosition pos, typename T, uint32_t tileSize> LocalTensor<T> Alloc() { return Carve<T>(tileSize, pos); }
    template <typename T> LocalTensor<T> Alloc(uint32_t tileSize) { return Carve<T>(tileSize); }
    template <TPosition pos, typename T> LocalTensor<T> Alloc(uint32_t tileSize) { return Carve<T>(tileSize, pos); }

private:
    template <typename T> LocalTensor<T> Carve(uint32_t n, TPosition pos = TPosition::VECCALC)
    {
        uint64_t bytes = ((uint64_t)n * sizeof(T) + 31) & ~(uint64_t)31;
        if (used_ + bytes > size_)
            aclsim::Fail("UB capacity", "LocalMemAllocator::Alloc: %llu bytes more at UB offset %llu pass the %llu-byte "
                         "unified buffer",
                         (unsigned long long)bytes, (unsigned long long)used_, (unsigned long long)size_);
        LocalTensor<T> t;
        t.addr_ = (T *)(void *)(base_ + used_);
        t.size_ = n;
        t.end_ = base_ + used_ + bytes;
        t.pos_ = pos;
        used_ += bytes;
        return t;
    }
    uint8_t *base_ = nullptr;
    uint64_t size_ = 0, used_ = 0;
};

} // namespace AscendC

/* The device's GetTPipePtr is also reachable unqualified. */
using AscendC::GetTPipePtr;

#endif /* AIOCANN_ASCENDC_TENSOR_H_ */
