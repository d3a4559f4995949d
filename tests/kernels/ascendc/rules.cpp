/*
 * One kernel, one broken rule per `which`: each must end its launch with an AI-core exception
 * (507015) whose message names the rule, the kernel and the block (tests/sim/test_ascendc_rules.py).
 */
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void rule(uint32_t which, GM_ADDR x)
{
    TPipe pipe;
    GlobalTensor<float> g;
    g.SetGlobalBuffer((__gm__ float *)x);
    switch (which) {
    case 0: { /* a UB operand not 32-byte aligned */
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        LocalTensor<float> t = b.Get<float>();
        Add(t[1], t[1], t[1], 64);
        break;
    }
    case 1: { /* more than the unified buffer */
        TBuf<TPosition::VECCALC> b1, b2;
        pipe.InitBuffer(b1, 128 * 1024);
        pipe.InitBuffer(b2, 128 * 1024);
        break;
    }
    case 2: { /* 65 buffers in one TPipe */
        TBuf<TPosition::VECCALC> bufs[65];
        for (auto &b : bufs)
            pipe.InitBuffer(b, 32);
        break;
    }
    case 3: { /* AllocTensor with every buffer in use */
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 256);
        LocalTensor<float> a = q.AllocTensor<float>();
        LocalTensor<float> b = q.AllocTensor<float>();
        (void)a;
        (void)b;
        break;
    }
    case 4: { /* two EnQue on a depth-1 queue */
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 2, 256);
        LocalTensor<float> a = q.AllocTensor<float>();
        LocalTensor<float> b = q.AllocTensor<float>();
        q.EnQue(a);
        q.EnQue(b);
        break;
    }
    case 5: { /* DeQue of an empty queue */
        TQue<TPosition::VECOUT, 1> q;
        pipe.InitBuffer(q, 2, 256);
        LocalTensor<float> a = q.DeQue<float>();
        (void)a;
        break;
    }
    case 6: { /* FreeTensor twice */
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 256);
        LocalTensor<float> a = q.AllocTensor<float>();
        q.FreeTensor(a);
        q.FreeTensor(a);
        break;
    }
    case 7: { /* EnQue of a freed tensor */
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 256);
        LocalTensor<float> a = q.AllocTensor<float>();
        q.FreeTensor(a);
        q.EnQue(a);
        break;
    }
    case 8: { /* 256 repeats */
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        LocalTensor<float> t = b.Get<float>();
        int32_t repeat = 256;
        Adds(t, t, 1.0f, (uint64_t)64, repeat, UnaryRepeatParams(1, 1, 0, 0));
        break;
    }
    case 9: { /* a count past the operand's buffer */
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        LocalTensor<float> t = b.Get<float>();
        Add(t, t, t, 128);
        break;
    }
    case 10: { /* DataCopyParams blockCount above 4095 */
        TBuf<TPosition::VECIN> b;
        pipe.InitBuffer(b, 256);
        LocalTensor<float> t = b.Get<float>();
        DataCopy(t, g, DataCopyParams(5000, 1, 0, 0));
        break;
    }
    case 11: { /* a 9th tensor allocated at once on VECIN */
        TQue<TPosition::VECIN, 1> q[9];
        for (auto &one : q)
            pipe.InitBuffer(one, 1, 64);
        for (auto &one : q)
            (void)one.AllocTensor<float>();
        break;
    }
    case 12: { /* GetValue past the buffer */
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 64);
        LocalTensor<float> t = b.Get<float>();
        g.SetValue(0, t.GetValue(16));
        break;
    }
    case 13: { /* DataCopyPad blockLen not a multiple of the element size */
        TBuf<TPosition::VECIN> b;
        pipe.InitBuffer(b, 256);
        LocalTensor<float> t = b.Get<float>();
        DataCopyPad(t, g, DataCopyExtParams(1, 10, 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
        break;
    }
    case 14: /* trap() */
        trap();
        break;
    case 15: { /* a queue on L1 (A1): not simulated */
        TQue<TPosition::A1, 1> q;
        pipe.InitBuffer(q, 1, 256);
        break;
    }
    case 16: { /* padding wider than 32 bytes */
        TBuf<TPosition::VECIN> b;
        pipe.InitBuffer(b, 512);
        LocalTensor<float> t = b.Get<float>();
        DataCopyPad(t, g, DataCopyExtParams(1, 32, 0, 0, 0), DataCopyPadExtParams<float>(true, 9, 0, 0.0f));
        break;
    }
    case 17: { /* FreeTensor of another queue's tensor */
        TQue<TPosition::VECIN, 1> q1, q2;
        pipe.InitBuffer(q1, 1, 256);
        pipe.InitBuffer(q2, 1, 256);
        LocalTensor<float> a = q1.AllocTensor<float>();
        q2.FreeTensor(a);
        break;
    }
    case 18: { /* a LocalTensor that never had a buffer */
        LocalTensor<float> t;
        Exp(t, t, 8);
        break;
    }
    case 19: { /* a queue of 9 buffers */
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 9, 64);
        break;
    }
    case 20: { /* a GM operand not aligned to its element size */
        TBuf<TPosition::VECIN> b;
        pipe.InitBuffer(b, 256);
        LocalTensor<float> t = b.Get<float>();
        GlobalTensor<float> odd;
        odd.SetGlobalBuffer((__gm__ float *)(x + 2));
        DataCopy(t, odd, 64);
        break;
    }
    default: break;
    }
}
