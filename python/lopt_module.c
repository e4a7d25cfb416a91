/* The Python module lopt: the C library (api/lopt.h) for CPython, NumPy
 * arrays in and out. Each call makes its own lopt context, so calls share
 * nothing but the module they read; the long ones (reading, pipelines,
 * runs, printing) release the GIL, holding the module's own lock instead. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "../api/lopt.h"

static PyObject *Error;      /* lopt.Error */
static PyObject *LimitError; /* lopt.LimitError: a budget (max_steps, timeout, max_memory) reached */
static PyTypeObject DiagnosticType, ExplainType;

static PyStructSequence_Field diag_fields[] = {
    { "file", "the name the text was read under, or None for an error about the call as a whole" },
    { "line", "1-based line, 0 when the diagnostic has no place" },
    { "column", "1-based column, 0 when the diagnostic has no place" },
    { "severity", "'error', 'warning' or 'note'" },
    { "message", "what is wrong" },
    { "source_line", "the text of the line it points into ('' without a place)" },
    { NULL, NULL },
};
static PyStructSequence_Desc diag_desc = { "lopt.Diagnostic", "One diagnostic: where, how severe, what.",
                                           diag_fields, 6 };

static PyStructSequence_Field explain_fields[] = {
    { "file", "the module's name" },
    { "line", "1-based line of the value or call it is about, 0 for the pass as a whole" },
    { "column", "1-based column, 0 for the pass as a whole" },
    { "pass_name", "the pass that wrote it" },
    { "message", "what the pass moved, folded or left, and why" },
    { NULL, NULL },
};
static PyStructSequence_Desc explain_desc = { "lopt.ExplainRecord", "One line of --explain, split into its parts.",
                                              explain_fields, 5 };

static const char *severity_name(lopt_severity s)
{
    return s == LOPT_ERROR ? "error" : s == LOPT_WARNING ? "warning" : "note";
}

/* Raises lopt.Error carrying ctx's diagnostics: str() is their text, a
 * diagnostic about a place as the command line prints it (file:line:col:
 * error: message), one about the call as a whole its message alone;
 * .diagnostics the records. Returns NULL. */
static PyObject *raise_error(lopt_context *ctx, const char *fallback)
{
    int n = lopt_diag_count(ctx);
    PyObject *list = PyList_New(0), *text = PyUnicode_FromString("");
    for (int i = 0; list && text && i < n; i++) {
        const lopt_diag *d = lopt_diag_get(ctx, i);
        PyObject *r = PyStructSequence_New(&DiagnosticType);
        if (!r)
            break;
        PyStructSequence_SET_ITEM(r, 0, d->file ? PyUnicode_FromString(d->file) : (Py_INCREF(Py_None), Py_None));
        PyStructSequence_SET_ITEM(r, 1, PyLong_FromLong(d->line));
        PyStructSequence_SET_ITEM(r, 2, PyLong_FromLong(d->column));
        PyStructSequence_SET_ITEM(r, 3, PyUnicode_FromString(severity_name(d->severity)));
        PyStructSequence_SET_ITEM(r, 4, PyUnicode_DecodeUTF8(d->message, (Py_ssize_t)strlen(d->message), "replace"));
        PyStructSequence_SET_ITEM(r, 5, PyUnicode_DecodeUTF8(d->source_line, (Py_ssize_t)strlen(d->source_line),
                                                             "replace"));
        PyList_Append(list, r);
        Py_DECREF(r);
        PyObject *line;
        /* an error about the call as a whole is its message alone (the
         * command line's "lopt: error: " is the command line's) */
        if (!d->file && d->severity == LOPT_ERROR)
            line = PyUnicode_FromFormat("%s%s", i ? "\n" : "", d->message);
        else if (!d->file)
            line = PyUnicode_FromFormat("%s%s: %s", i ? "\n" : "", severity_name(d->severity), d->message);
        else if (d->line)
            line = PyUnicode_FromFormat("%s%s:%d:%d: %s: %s", i ? "\n" : "", d->file, d->line, d->column,
                                        severity_name(d->severity), d->message);
        else
            line = PyUnicode_FromFormat("%s%s: %s: %s", i ? "\n" : "", d->file, severity_name(d->severity),
                                        d->message);
        if (line) {
            PyObject *joined = PyUnicode_Concat(text, line);
            Py_DECREF(line);
            Py_SETREF(text, joined);
        }
        if (!text)
            break;
    }
    if (!list || !text) {
        Py_XDECREF(list);
        Py_XDECREF(text);
        return NULL;
    }
    if (n == 0) {
        Py_DECREF(text);
        text = PyUnicode_FromString(fallback ? fallback : "lopt failed");
    }
    PyObject *type = Error;
    for (int i = 0; i < n; i++)
        if (lopt_diag_get(ctx, i)->status == LOPT_ELIMIT)
            type = LimitError;
    /* the library ran out of memory: Python's own MemoryError, the
     * interpreter lives on (the library freed what the call made) */
    for (int i = 0; i < n; i++)
        if (lopt_diag_get(ctx, i)->status == LOPT_ENOMEM) {
            Py_DECREF(list);
            Py_DECREF(text);
            return PyErr_NoMemory();
        }
    PyObject *exc = PyObject_CallFunctionObjArgs(type, text, NULL);
    Py_DECREF(text);
    if (exc) {
        PyObject_SetAttrString(exc, "diagnostics", list);
        PyErr_SetObject(type, exc);
        Py_DECREF(exc);
    }
    Py_DECREF(list);
    return NULL;
}

/* Warnings of a call that succeeded go to Python's warnings. */
static int pass_warnings(lopt_context *ctx)
{
    for (int i = 0; i < lopt_diag_count(ctx); i++) {
        const lopt_diag *d = lopt_diag_get(ctx, i);
        if (d->severity == LOPT_WARNING &&
            PyErr_WarnFormat(PyExc_UserWarning, 1, "%s:%d:%d: %s", d->file ? d->file : "lopt", d->line, d->column,
                             d->message))
            return -1;
    }
    return 0;
}

/* ---- Ctrl-C ----
 *
 * A call that releases the GIL (run, apply) from the main thread catches
 * SIGINT for its duration: the handler sets the flag the library stops on
 * (lopt_set_interrupt) and calls Python's own handler, so Python sees the
 * signal too; the call then stops within some 10 ms, Python's handler is
 * put back, and PyErr_CheckSignals raises KeyboardInterrupt. The GIL
 * orders the calls that install and restore, and only the main thread
 * does, so one saved handler serves. */

static volatile sig_atomic_t sigint_flag;
static struct sigaction python_sigint;
static pthread_t main_thread;

static void on_sigint(int sig, siginfo_t *info, void *uc)
{
    sigint_flag = 1;
    if (python_sigint.sa_flags & SA_SIGINFO)
        python_sigint.sa_sigaction(sig, info, uc);
    else if (python_sigint.sa_handler != SIG_DFL && python_sigint.sa_handler != SIG_IGN)
        python_sigint.sa_handler(sig);
}

/* With the GIL: 1 when SIGINT is caught for ctx's call, 0 when it is left
 * alone (not the main thread, or SIGINT ignored or left to its default). */
static int sigint_catch(lopt_context *ctx)
{
    struct sigaction cur, sa;
    if (!pthread_equal(pthread_self(), main_thread) || sigaction(SIGINT, NULL, &cur) ||
        (!(cur.sa_flags & SA_SIGINFO) && (cur.sa_handler == SIG_DFL || cur.sa_handler == SIG_IGN)))
        return 0;
    python_sigint = cur;
    sigint_flag = 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigint;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL))
        return 0;
    lopt_set_interrupt(ctx, &sigint_flag);
    return 1;
}

/* With the GIL, after the call: Python's handler back; -1 with
 * KeyboardInterrupt (or what Python's handler raises) when SIGINT came. */
static int sigint_release(int caught)
{
    if (!caught)
        return 0;
    sigaction(SIGINT, &python_sigint, NULL);
    return sigint_flag ? PyErr_CheckSignals() : 0;
}

/* ---- Module ---- */

typedef struct {
    PyObject_HEAD
    lopt_module *m;
    PyThread_type_lock lock;   /* held, without the GIL, by a call that reads m */
} ModuleObject;

static PyTypeObject ModuleType;

static ModuleObject *module_wrap(lopt_module *m)
{
    ModuleObject *self = PyObject_New(ModuleObject, &ModuleType);
    if (!self) {
        lopt_module_free(m);
        return NULL;
    }
    self->m = m;
    self->lock = PyThread_allocate_lock();
    if (!self->lock) {
        self->m = NULL;
        lopt_module_free(m);
        Py_DECREF(self);
        return (ModuleObject *)PyErr_NoMemory();
    }
    return self;
}

static void module_dealloc(ModuleObject *self)
{
    lopt_module_free(self->m);
    if (self->lock)
        PyThread_free_lock(self->lock);
    PyObject_Free(self);
}

static lopt_context *new_context(void)
{
    lopt_context *ctx = lopt_context_new();
    if (!ctx)
        PyErr_NoMemory();
    return ctx;
}

PyDoc_STRVAR(parse_doc,
"parse($module, /, text, name='<string>', constants=None, strict=False, allow_unregistered=False)\n--\n\n"
"Reads a module from TVMScript-like text, str or bytes (what tvm's\n"
"mod.script() prints, or lopt's canonical text) and verifies it: a Module.\n"
"name is the file name diagnostics give; constants is the .npz archive or\n"
"directory holding the constants TVM prints as\n"
"metadata[\"relax.expr.Constant\"][i], read once, here: the module keeps\n"
"their data, so apply and its results read the file no more; strict makes\n"
"warnings errors; allow_unregistered keeps a call of a name neither lopt\n"
"nor TVM defines as an opaque call (with a warning) instead of refusing it.\n"
"bytes that are not UTF-8 are refused at the first bad byte. Raises\n"
"lopt.Error with the diagnostics when the text does not read or verify,\n"
"MemoryError when memory runs out (the process lives on); warnings go to\n"
"Python's warnings.");

static PyObject *py_parse(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "text", "name", "constants", "strict", "allow_unregistered", NULL };
    const char *text, *name = "<string>", *constants = NULL;
    PyObject *src;
    Py_ssize_t len;
    int strict = 0, allow_unregistered = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|szpp", kwlist, &src, &name, &constants, &strict, &allow_unregistered))
        return NULL;
    if (PyBytes_Check(src)) {
        if (PyBytes_AsStringAndSize(src, (char **)&text, &len))
            return NULL;
    } else if (!(text = PyUnicode_AsUTF8AndSize(src, &len))) {
        return NULL;
    }
    lopt_context *ctx = new_context();
    if (!ctx)
        return NULL;
    lopt_set_constants(ctx, constants);
    lopt_set_strict(ctx, strict);
    lopt_set_allow_unregistered(ctx, allow_unregistered);
    lopt_module *m;
    int bad;
    Py_BEGIN_ALLOW_THREADS
    m = lopt_parse(ctx, text, (size_t)len, name);
    bad = !m || lopt_verify(ctx, m);
    Py_END_ALLOW_THREADS
    PyObject *r;
    if (bad) {
        lopt_module_free(m);
        r = raise_error(ctx, "the module does not read");
    } else if (pass_warnings(ctx)) {
        lopt_module_free(m);
        r = NULL;
    } else {
        r = (PyObject *)module_wrap(m);
    }
    lopt_context_free(ctx);
    return r;
}

static lopt_style style_of(const char *s)
{
    if (strcmp(s, "canonical") == 0)
        return LOPT_STYLE_CANONICAL;
    if (strcmp(s, "tvm") == 0)
        return LOPT_STYLE_TVM;
    if (strcmp(s, "dot") == 0)
        return LOPT_STYLE_DOT;
    return (lopt_style)-1;
}

static void lock(ModuleObject *self)
{
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
}

static void unlock(ModuleObject *self)
{
    PyThread_release_lock(self->lock);
}

PyDoc_STRVAR(script_doc,
"script($self, /, style='canonical')\n--\n\n"
"The module as text: 'canonical' is lopt's one spelling (what str(module)\n"
"gives), 'tvm' the spelling current TVM reads back with\n"
"tvm.script.from_source (T.sblock, s_tir=True, the import header), 'dot'\n"
"the graph of each Relax function for Graphviz. Returns a str.");

static PyObject *module_script(ModuleObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "style", NULL };
    const char *style = "canonical";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|s", kwlist, &style))
        return NULL;
    lopt_style s = style_of(style);
    if ((int)s < 0)
        return PyErr_Format(PyExc_ValueError, "style is 'canonical', 'tvm' or 'dot'; not '%s'", style);
    char *text;
    Py_BEGIN_ALLOW_THREADS
    lock(self);
    text = lopt_module_print(self->m, s);
    unlock(self);
    Py_END_ALLOW_THREADS
    if (!text)
        return PyErr_NoMemory();
    PyObject *r = PyUnicode_FromString(text);
    lopt_free(text);
    return r;
}



/* timeout (seconds, None: none) and max_memory (bytes, None: the
 * machine's physical memory) as lopt_set_timeout and lopt_set_max_memory
 * take them (0: the default); -1 after raising ValueError or TypeError. */
static int budgets(PyObject *timeout, PyObject *memory, double *seconds, size_t *bytes)
{
    *seconds = 0;
    *bytes = 0;
    if (timeout != Py_None) {
        *seconds = PyFloat_AsDouble(timeout);
        if (*seconds == -1 && PyErr_Occurred())
            return -1;
        if (!(*seconds > 0) || *seconds > 1e9) {
            PyErr_Format(PyExc_ValueError, "timeout is a number of seconds above 0, or None");
            return -1;
        }
    }
    if (memory != Py_None) {
        *bytes = PyLong_AsSize_t(memory);
        if (*bytes == (size_t)-1 && PyErr_Occurred())
            return -1;
        if (*bytes == 0) {
            PyErr_Format(PyExc_ValueError, "max_memory is a number of bytes above 0, or None");
            return -1;
        }
    }
    return 0;
}

/* A copy of self with pipeline run on it (ctx set up by the caller); NULL after raising. */
static lopt_module *applied(ModuleObject *self, lopt_context *ctx, const char *pipeline)
{
    lopt_pipeline *p = lopt_pipeline_new();
    if (!p) {
        PyErr_NoMemory();
        return NULL;
    }
    if (lopt_pipeline_append(ctx, p, pipeline)) {
        lopt_pipeline_free(p);
        raise_error(ctx, NULL);
        return NULL;
    }
    lopt_module *m;
    int bad, caught = sigint_catch(ctx);
    Py_BEGIN_ALLOW_THREADS
    lock(self);
    m = lopt_module_clone(ctx, self->m);
    unlock(self);
    bad = !m || lopt_apply(ctx, m, p);
    Py_END_ALLOW_THREADS
    lopt_pipeline_free(p);
    if (sigint_release(caught)) {
        lopt_module_free(m);
        return NULL;
    }
    if (bad) {
        lopt_module_free(m);
        raise_error(ctx, "the pipeline failed");
        return NULL;
    }
    return m;
}

PyDoc_STRVAR(apply_doc,
"apply($self, /, pipeline, verify_exec=False, ulp=0, report=None, timeout=None, max_memory=None)\n--\n\n"
"A new module: this one with the passes of pipeline run over it, as\n"
"lopt --pass=PIPELINE does ('convert-layout{conv2d=NCHW4c:OIHW4o},plan,fold').\n"
"This module is left as it is; the copy the passes run on is made from\n"
"what it holds (its text and constants: no file is read but the report)\n"
"and verified as it was, so the result is what the command line prints. verify_exec runs main on seeded inputs before\n"
"the pipeline and after every pass and raises at the first pass that changes\n"
"an output (bit-exact, or within ulp units in the last place). report names\n"
"a file to write the pipeline's HTML page to, as lopt --report=FILE does.\n"
"timeout bounds the wall time of the pipeline and its runs in seconds\n"
"(checked before each pass and in the runs), max_memory what verify_exec's\n"
"runs hold, as run() says. Raises lopt.Error with the diagnostics when a\n"
"pass fails, lopt.LimitError when a budget stops the pipeline,\n"
"MemoryError when memory runs out (this module is left as it was), and\n"
"KeyboardInterrupt on Ctrl-C (before the next pass, or in a run).");

static PyObject *module_apply(ModuleObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "pipeline", "verify_exec", "ulp", "report", "timeout", "max_memory", NULL };
    const char *pipeline, *report = NULL;
    int verify_exec = 0;
    long long ulp = 0;
    PyObject *timeout = Py_None, *memory = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|pLzOO", kwlist, &pipeline, &verify_exec, &ulp, &report, &timeout,
                                     &memory))
        return NULL;
    double seconds;
    size_t bytes;
    if (budgets(timeout, memory, &seconds, &bytes))
        return NULL;
    lopt_context *ctx = new_context();
    if (!ctx)
        return NULL;
    lopt_set_timeout(ctx, seconds);
    lopt_set_max_memory(ctx, bytes);
    lopt_set_verify_exec(ctx, verify_exec, ulp);
    lopt_set_html_report(ctx, report);
    lopt_module *m = applied(self, ctx, pipeline);
    PyObject *r = m ? (PyObject *)module_wrap(m) : NULL;
    lopt_context_free(ctx);
    return r;
}

PyDoc_STRVAR(explain_doc,
"explain($self, pipeline, /)\n--\n\n"
"Runs pipeline on a copy of the module with --explain and returns what the\n"
"passes said, a list of ExplainRecord, one per line: file (the module's\n"
"name, whole), line, column (0 for the pass as a whole), pass_name and\n"
"message. Raises lopt.Error when a pass fails.");

static PyObject *module_explain(ModuleObject *self, PyObject *args)
{
    const char *pipeline;
    if (!PyArg_ParseTuple(args, "s", &pipeline))
        return NULL;
    lopt_context *ctx = new_context();
    if (!ctx)
        return NULL;
    lopt_set_explain(ctx, 1);
    lopt_module *m = applied(self, ctx, pipeline);
    PyObject *list = NULL;
    if (m) {
        lopt_explain_record *rec;
        int n = lopt_explain_parse_file(lopt_report_text(ctx), lopt_module_name(self->m), &rec);
        list = PyList_New(0);
        for (int i = 0; list && i < n; i++) {
            PyObject *r = PyStructSequence_New(&ExplainType);
            if (!r) {
                Py_CLEAR(list);
                break;
            }
            PyStructSequence_SET_ITEM(r, 0, PyUnicode_FromString(rec[i].file));
            PyStructSequence_SET_ITEM(r, 1, PyLong_FromLong(rec[i].line));
            PyStructSequence_SET_ITEM(r, 2, PyLong_FromLong(rec[i].column));
            PyStructSequence_SET_ITEM(r, 3, PyUnicode_FromString(rec[i].pass));
            PyStructSequence_SET_ITEM(r, 4, PyUnicode_FromString(rec[i].message));
            PyList_Append(list, r);
            Py_DECREF(r);
        }
        lopt_explain_free(rec, n);
    }
    lopt_module_free(m);
    lopt_context_free(ctx);
    return list;
}

/* x as the C-ordered array lopt takes for a parameter declaring dtype want
 * (NULL: none): an array or NumPy scalar keeps its dtype (and its rank, 0
 * among them) unless cast; a Python number or list, which has no dtype of
 * its own, takes the parameter's, as NumPy's own arithmetic gives one. */
static PyObject *as_input_array(PyObject *numpy, PyObject *x, const char *want, int cast)
{
    int typed = PyObject_HasAttrString(x, "dtype");
    PyObject *a = NULL;
    if (want && (cast || !typed)) {
        a = PyObject_CallMethod(numpy, "asarray", "Osz", x, want, "C");
        if (!a && typed)
            return NULL;
        /* a dtype NumPy has not (bfloat16): the value as NumPy makes it, which lopt refuses by name */
        PyErr_Clear();
    }
    return a ? a : PyObject_CallMethod(numpy, "asarray", "Ozz", x, NULL, "C");
}

/* Gives x as input name of ctx; 0, or -1 after raising. */
static int add_input(lopt_context *ctx, PyObject *numpy, const char *pname, PyObject *x, const char *want, int cast)
{
    PyObject *a = as_input_array(numpy, x, want, cast);
    if (!a)
        return -1;
    /* lopt reads elements in the machine's byte order */
    PyObject *native = PyObject_GetAttrString(a, "dtype");
    PyObject *isnative = native ? PyObject_GetAttrString(native, "isnative") : NULL;
    if (isnative && !PyObject_IsTrue(isnative)) {
        PyObject *nd = PyObject_CallMethod(native, "newbyteorder", "s", "=");
        PyObject *b = nd ? PyObject_CallMethod(a, "astype", "O", nd) : NULL;
        Py_XDECREF(nd);
        Py_SETREF(a, b);
    }
    Py_XDECREF(isnative);
    Py_XDECREF(native);
    if (!a)
        return -1;
    PyObject *dt = PyObject_GetAttrString(a, "dtype");
    PyObject *dname = dt ? PyObject_GetAttrString(dt, "name") : NULL;
    PyObject *shape = PyObject_GetAttrString(a, "shape");
    Py_XDECREF(dt);
    int status = -1;
    Py_buffer view;
    if (dname && shape && PyTuple_Check(shape) && PyObject_GetBuffer(a, &view, PyBUF_C_CONTIGUOUS) == 0) {
        int64_t dims[16];
        Py_ssize_t nd = PyTuple_GET_SIZE(shape);
        if (nd > 16) {
            PyErr_Format(PyExc_ValueError, "input %s: rank %zd is above lopt's limit of 16", pname, nd);
        } else {
            for (Py_ssize_t i = 0; i < nd; i++)
                dims[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
            lopt_tensor t = { PyUnicode_AsUTF8(dname), (int)nd, dims, view.buf, (size_t)view.len };
            if (lopt_add_input(ctx, pname, &t))
                raise_error(ctx, NULL);
            else
                status = 0;
        }
        PyBuffer_Release(&view);
    }
    Py_XDECREF(dname);
    Py_XDECREF(shape);
    Py_DECREF(a);
    return status;
}

/* A NumPy array holding a copy of the tensor t; NULL after raising. */
static PyObject *to_array(PyObject *numpy, const lopt_tensor *t)
{
    if (strcmp(t->dtype, "bfloat16") == 0)
        return PyErr_Format(Error, "an output is bfloat16, which NumPy has not");
    PyObject *bytes = PyByteArray_FromStringAndSize(t->data, (Py_ssize_t)t->nbytes);
    PyObject *shape = PyTuple_New(t->ndim);
    if (!bytes || !shape) {
        Py_XDECREF(bytes);
        Py_XDECREF(shape);
        return NULL;
    }
    for (int i = 0; i < t->ndim; i++)
        PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(t->shape[i]));
    PyObject *flat = PyObject_CallMethod(numpy, "frombuffer", "Os", bytes, t->dtype);
    PyObject *r = flat ? PyObject_CallMethod(flat, "reshape", "(O)", shape) : NULL;
    Py_XDECREF(flat);
    Py_DECREF(bytes);
    Py_DECREF(shape);
    return r;
}

/* The value v as arrays, tuples of arrays for tuples. */
static PyObject *to_python(PyObject *numpy, const lopt_value *v)
{
    if (lopt_value_kind_of(v) == LOPT_VALUE_TUPLE) {
        int n = lopt_value_tuple_size(v);
        PyObject *t = PyTuple_New(n);
        for (int i = 0; t && i < n; i++) {
            PyObject *item = to_python(numpy, lopt_value_tuple_item(v, i));
            if (!item) {
                Py_CLEAR(t);
                break;
            }
            PyTuple_SET_ITEM(t, i, item);
        }
        return t;
    }
    lopt_tensor t;
    lopt_value_tensor(v, &t);
    return to_array(numpy, &t);
}

PyDoc_STRVAR(run_doc,
"run($self, /, inputs=None, seed=1, entry='main', shapes=None, max_steps=None, threads=1, cast=False,\n"
"    timeout=None, max_memory=None)\n--\n\n"
"Runs the function entry (a Relax function, or a PrimFunc alone on seeded\n"
"buffers), as lopt --run --entry does, and returns its result\n"
"as NumPy arrays: an array for a tensor (a shape value as the int64 array of\n"
"its dimensions, a prim value as a 0-d array), a tuple for a tuple. inputs\n"
"maps parameter names to values: arrays of any rank (0-d for\n"
"R.Tensor(()): np.array(3.0, 'float32') or np.float32(3)), any order or\n"
"byte order, or Python numbers and lists, which take the dtype the\n"
"parameter declares. An array or NumPy scalar must hold that dtype (a\n"
"float64 array for a float32 parameter raises lopt.Error naming both)\n"
"unless cast, which converts it as numpy.asarray(x, dtype) does.\n"
"The parameters not given are filled from seed as lopt --seed fills them.\n"
"shapes maps the names of seeded inputs to their shapes (sequences of\n"
"integers), binding symbolic dimensions as --shape does. max_steps bounds\n"
"the loop iterations, a call of one Relax function by another counting\n"
"4000 (None: 3*10^10, as --max-steps); threads runs loops proven independent\n"
"on that many threads (0: every core). timeout bounds the run's wall time\n"
"in seconds (None: no bound), max_memory the bytes its tensors and arenas\n"
"hold at once (None: the machine's physical memory), as --timeout and\n"
"--max-memory do. Raises TypeError for inputs or shapes that are not dicts\n"
"keyed by str, lopt.LimitError (an lopt.Error) when max_steps, timeout or\n"
"max_memory stops the run, MemoryError when the machine's memory runs out,\n"
"lopt.Error with the diagnostics when it fails otherwise, and KeyboardInterrupt within a fraction of a second of Ctrl-C\n"
"(SIGINT) when called from the main thread.");

/* The dtypes entry declares for the names of inputs (NULL where none), read under the module's lock. */
static int input_dtypes(ModuleObject *self, const char *entry, PyObject *inputs, const char ***names,
                        const char ***want)
{
    Py_ssize_t n = inputs == Py_None ? 0 : PyDict_Size(inputs), pos = 0, i = 0;
    PyObject *key, *val;
    *names = PyMem_Calloc((size_t)n + 1, sizeof **names);
    *want = PyMem_Calloc((size_t)n + 1, sizeof **want);
    if (!*names || !*want) {
        PyErr_NoMemory();
        return -1;
    }
    while (n && PyDict_Next(inputs, &pos, &key, &val)) {
        if (!PyUnicode_Check(key)) {
            PyErr_Format(PyExc_TypeError, "inputs is keyed by parameter name (str), not %.100s",
                         Py_TYPE(key)->tp_name);
            return -1;
        }
        if (!((*names)[i++] = PyUnicode_AsUTF8(key)))
            return -1;
    }
    Py_BEGIN_ALLOW_THREADS
    lock(self);
    for (Py_ssize_t k = 0; k < n; k++)
        (*want)[k] = lopt_module_param_dtype(self->m, entry, (*names)[k]);
    unlock(self);
    Py_END_ALLOW_THREADS
    return 0;
}

/* shapes[key] as lopt's "D,D,..." and given to ctx; 0, or -1 after raising. */
static int add_shape(lopt_context *ctx, PyObject *key, PyObject *val)
{
    if (!PyUnicode_Check(key)) {
        PyErr_Format(PyExc_TypeError, "shapes is keyed by parameter name (str), not %.100s", Py_TYPE(key)->tp_name);
        return -1;
    }
    const char *name = PyUnicode_AsUTF8(key);
    PyObject *seq = name ? PySequence_Fast(val, "a shape is a sequence of integers") : NULL;
    if (!seq)
        return -1;
    char dims[1024];
    size_t n = 0;
    dims[0] = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq) && n < sizeof dims; i++)
        n += (size_t)snprintf(dims + n, sizeof dims - n, "%s%lld", i ? "," : "",
                              PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i)));
    Py_DECREF(seq);
    if (PyErr_Occurred())
        return -1;
    if (n >= sizeof dims) {
        PyErr_Format(PyExc_ValueError, "shape of %s: too many extents", name);
        return -1;
    }
    return lopt_add_input_shape(ctx, name, dims) ? (raise_error(ctx, NULL), -1) : 0;
}

static PyObject *module_run(ModuleObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "inputs", "seed", "entry", "shapes", "max_steps", "threads", "cast", "timeout",
                              "max_memory", NULL };
    PyObject *inputs = Py_None, *shapes = Py_None, *steps = Py_None, *timeout = Py_None, *memory = Py_None;
    unsigned long long seed = 1;
    const char *entry = "main";
    int threads = 1, cast = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OKsOOipOO", kwlist, &inputs, &seed, &entry, &shapes, &steps,
                                     &threads, &cast, &timeout, &memory))
        return NULL;
    double seconds;
    size_t bytes;
    if (budgets(timeout, memory, &seconds, &bytes))
        return NULL;
    if ((inputs != Py_None && !PyDict_Check(inputs)) || (shapes != Py_None && !PyDict_Check(shapes)))
        return PyErr_Format(PyExc_TypeError, "inputs and shapes are dicts by parameter name");
    long long max_steps = 0;
    if (steps != Py_None && (max_steps = PyLong_AsLongLong(steps)) == -1 && PyErr_Occurred())
        return NULL;
    PyObject *numpy = PyImport_ImportModule("numpy");
    if (!numpy)
        return NULL;
    const char **names = NULL, **want = NULL;
    lopt_context *ctx = NULL;
    PyObject *key, *val, *r = NULL;
    /* a copy: the values' conversions run Python code, which may change the caller's dict */
    if (inputs != Py_None && !(inputs = PyDict_Copy(inputs))) {
        Py_DECREF(numpy);
        return NULL;
    }
    if (inputs == Py_None)
        Py_INCREF(inputs);
    if (input_dtypes(self, entry, inputs, &names, &want) || !(ctx = new_context()))
        goto done;
    lopt_set_seed(ctx, seed);
    lopt_set_threads(ctx, threads);
    lopt_set_timeout(ctx, seconds);
    lopt_set_max_memory(ctx, bytes);
    if (max_steps > 0)
        lopt_set_max_steps(ctx, max_steps);
    Py_ssize_t pos = 0;
    for (int i = 0; inputs != Py_None && PyDict_Next(inputs, &pos, &key, &val); i++)
        if (add_input(ctx, numpy, names[i], val, want[i], cast))
            goto done;
    pos = 0;
    while (shapes != Py_None && PyDict_Next(shapes, &pos, &key, &val))
        if (add_shape(ctx, key, val))
            goto done;
    lopt_value *v = NULL;
    int bad, caught = sigint_catch(ctx);
    Py_BEGIN_ALLOW_THREADS
    lock(self);
    bad = lopt_run(ctx, self->m, entry, &v);
    unlock(self);
    Py_END_ALLOW_THREADS
    if (sigint_release(caught))
        ;
    else if (bad)
        raise_error(ctx, "the run failed");
    else
        r = to_python(numpy, v);
    lopt_value_free(v);
done:
    lopt_context_free(ctx);
    PyMem_Free(names);
    PyMem_Free(want);
    Py_DECREF(inputs);
    Py_DECREF(numpy);
    return r;
}

/* <lopt.Module 'name': main, relu, add> */
static PyObject *module_repr(ModuleObject *self)
{
    PyObject *names = PyList_New(0);
    int n;
    Py_BEGIN_ALLOW_THREADS
    lock(self);
    n = lopt_module_function_count(self->m);
    unlock(self);
    Py_END_ALLOW_THREADS
    for (int i = 0; names && i < n; i++) {
        /* a function's name lives as long as the module, which does not change */
        PyObject *f = PyUnicode_FromString(lopt_module_function_name(self->m, i));
        if (!f || PyList_Append(names, f))
            Py_CLEAR(names);
        Py_XDECREF(f);
    }
    PyObject *sep = names ? PyUnicode_FromString(", ") : NULL;
    PyObject *joined = sep ? PyUnicode_Join(sep, names) : NULL;
    PyObject *r = joined ? PyUnicode_FromFormat("<lopt.Module '%s': %U>", lopt_module_name(self->m), joined) : NULL;
    Py_XDECREF(sep);
    Py_XDECREF(joined);
    Py_XDECREF(names);
    return r;
}

/* The canonical text, as bytes; NULL after raising. */
static char *canonical(ModuleObject *self)
{
    char *text;
    Py_BEGIN_ALLOW_THREADS
    lock(self);
    text = lopt_module_print(self->m, LOPT_STYLE_CANONICAL);
    unlock(self);
    Py_END_ALLOW_THREADS
    if (!text)
        PyErr_NoMemory();
    return text;
}

static PyObject *module_str(ModuleObject *self)
{
    char *text = canonical(self);
    PyObject *r = text ? PyUnicode_FromString(text) : NULL;
    lopt_free(text);
    return r;
}

/* Two modules are equal when their canonical texts are: one spelling per
 * construct, so equal texts are equal modules (the names they were read
 * under apart). Modules do not change, so the hash is the text's. */
static PyObject *module_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(a, &ModuleType) || !PyObject_TypeCheck(b, &ModuleType) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    int same = a == b;
    if (!same) {
        char *x = canonical((ModuleObject *)a), *y = x ? canonical((ModuleObject *)b) : NULL;
        if (!y) {
            lopt_free(x);
            return NULL;
        }
        same = strcmp(x, y) == 0;
        lopt_free(x);
        lopt_free(y);
    }
    return PyBool_FromLong(op == Py_EQ ? same : !same);
}

static Py_hash_t module_hash(ModuleObject *self)
{
    char *x = canonical(self);
    if (!x)
        return -1;
    PyObject *b = PyBytes_FromString(x);
    lopt_free(x);
    Py_hash_t h = b ? PyObject_Hash(b) : -1;
    Py_XDECREF(b);
    return h;
}

static PyMethodDef module_methods[] = {
    { "script", (PyCFunction)(void (*)(void))module_script, METH_VARARGS | METH_KEYWORDS, script_doc },
    { "apply", (PyCFunction)(void (*)(void))module_apply, METH_VARARGS | METH_KEYWORDS, apply_doc },
    { "explain", (PyCFunction)module_explain, METH_VARARGS, explain_doc },
    { "run", (PyCFunction)(void (*)(void))module_run, METH_VARARGS | METH_KEYWORDS, run_doc },
    { NULL, NULL, 0, NULL },
};

PyDoc_STRVAR(module_doc,
"A module read by lopt.parse: Relax functions calling TIR prim_funcs.\n\n"
"Modules do not change: apply returns a new one. str(module) is its\n"
"canonical text; two modules are == when their canonical texts are equal\n"
"(whatever names they were read under), and hash by it. repr names the\n"
"module and its functions.");

static PyTypeObject ModuleType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "lopt.Module",
    .tp_basicsize = sizeof(ModuleObject),
    .tp_dealloc = (destructor)module_dealloc,
    .tp_str = (reprfunc)module_str,
    .tp_repr = (reprfunc)module_repr,
    .tp_richcompare = module_richcompare,
    .tp_hash = (hashfunc)module_hash,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = module_doc,
    .tp_methods = module_methods,
};

/* ---- IndexMap ---- */

typedef struct {
    PyObject_HEAD
    lopt_indexmap *m;
} MapObject;

static PyTypeObject MapType;

static PyObject *map_wrap(lopt_indexmap *m)
{
    MapObject *self = PyObject_New(MapObject, &MapType);
    if (!self) {
        lopt_indexmap_free(m);
        return NULL;
    }
    self->m = m;
    return (PyObject *)self;
}

static PyObject *tuple_of(const int64_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++)
        PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v[i]));
    return t;
}

/* Reads a sequence of at most 16 integers into v; the count, or -1 after raising. */
static int ints_of(PyObject *o, int64_t *v, const char *what)
{
    PyObject *seq = PySequence_Fast(o, what);
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > 16) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s has at most 16 entries", what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        v[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    Py_DECREF(seq);
    return PyErr_Occurred() ? -1 : (int)n;
}

static int map_init(MapObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "map", "shape", NULL };
    const char *text;
    PyObject *shape;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sO", kwlist, &text, &shape))
        return -1;
    int64_t box[16];
    int rank = ints_of(shape, box, "shape");
    if (rank < 0)
        return -1;
    lopt_context *ctx = new_context();
    if (!ctx)
        return -1;
    lopt_indexmap *m = lopt_indexmap_new(ctx, text, box, rank, "<map>");
    if (!m) {
        raise_error(ctx, NULL);
        lopt_context_free(ctx);
        return -1;
    }
    lopt_context_free(ctx);
    lopt_indexmap_free(self->m);
    self->m = m;
    return 0;
}

static PyObject *map_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    MapObject *self = (MapObject *)type->tp_alloc(type, 0);
    if (self)
        self->m = NULL;
    return (PyObject *)self;
}

static void map_dealloc(MapObject *self)
{
    lopt_indexmap_free(self->m);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int ready(MapObject *self)
{
    if (self->m)
        return 1;
    PyErr_SetString(PyExc_ValueError, "the IndexMap was not initialized");
    return 0;
}

static PyObject *map_str(MapObject *self)
{
    if (!ready(self))
        return NULL;
    char *t = lopt_indexmap_text(self->m);
    PyObject *r = PyUnicode_FromString(t ? t : "");
    lopt_free(t);
    return r;
}

static PyObject *map_repr(MapObject *self)
{
    PyObject *s = map_str(self);
    if (!s)
        return NULL;
    PyObject *shape = tuple_of(lopt_indexmap_shape(self->m, 0), lopt_indexmap_rank(self->m, 0));
    PyObject *r = PyUnicode_FromFormat("IndexMap(%R, shape=%R)", s, shape);
    Py_DECREF(s);
    Py_XDECREF(shape);
    return r;
}

PyDoc_STRVAR(inverse_doc,
"inverse($self, /)\n--\n\n"
"The inverse map, over this map's output box; its padding is the predicate\n"
"on its inputs that holds on padding. Raises lopt.Error when the map has no\n"
"inverse (it is not injective, or the inverse is not derived). Returns an\n"
"IndexMap.");

static PyObject *map_inverse(MapObject *self, PyObject *unused)
{
    if (!ready(self))
        return NULL;
    lopt_context *ctx = new_context();
    if (!ctx)
        return NULL;
    lopt_indexmap *m = lopt_indexmap_inverse(ctx, self->m);
    PyObject *r = m ? map_wrap(m) : raise_error(ctx, NULL);
    lopt_context_free(ctx);
    return r;
}

PyDoc_STRVAR(compose_doc,
"compose($self, other, /)\n--\n\n"
"The IndexMap of other applied after this map: other's shape must be this\n"
"map's output shape.");

static PyObject *map_compose(MapObject *self, PyObject *arg)
{
    if (!ready(self))
        return NULL;
    if (!PyObject_TypeCheck(arg, &MapType) || !ready((MapObject *)arg))
        return PyErr_Format(PyExc_TypeError, "compose takes an IndexMap");
    lopt_context *ctx = new_context();
    if (!ctx)
        return NULL;
    lopt_indexmap *m = lopt_indexmap_compose(ctx, self->m, ((MapObject *)arg)->m);
    PyObject *r = m ? map_wrap(m) : raise_error(ctx, NULL);
    lopt_context_free(ctx);
    return r;
}

PyDoc_STRVAR(apply_map_doc,
"apply($self, index, /)\n--\n\n"
"The image of index (one integer per input, inside the shape), a tuple.");

static PyObject *map_apply(MapObject *self, PyObject *arg)
{
    if (!ready(self))
        return NULL;
    int64_t at[16], out[16];
    int n = ints_of(arg, at, "index");
    if (n < 0)
        return NULL;
    if (n != lopt_indexmap_rank(self->m, 0))
        return PyErr_Format(PyExc_ValueError, "the index has %d entries but the map has %d inputs", n,
                            lopt_indexmap_rank(self->m, 0));
    lopt_context *ctx = new_context();
    if (!ctx)
        return NULL;
    PyObject *r = lopt_indexmap_apply(ctx, self->m, at, out) ? raise_error(ctx, NULL)
                                                             : tuple_of(out, lopt_indexmap_rank(self->m, 1));
    lopt_context_free(ctx);
    return r;
}

static PyObject *map_kind(MapObject *self, void *unused)
{
    static const char *const kinds[] = { "identity", "bijective", "injective with padding", "not injective",
                                         "unknown" };
    return ready(self) ? PyUnicode_FromString(kinds[lopt_indexmap_kind(self->m, NULL, NULL)]) : NULL;
}

static PyObject *map_padding(MapObject *self, void *unused)
{
    if (!ready(self))
        return NULL;
    char *p = lopt_indexmap_padding(self->m);
    if (!p)
        Py_RETURN_NONE;
    PyObject *r = PyUnicode_FromString(p);
    lopt_free(p);
    return r;
}

static PyObject *map_shape(MapObject *self, void *out)
{
    return ready(self) ? tuple_of(lopt_indexmap_shape(self->m, out != NULL), lopt_indexmap_rank(self->m, out != NULL))
                       : NULL;
}

static PyMethodDef map_methods[] = {
    { "inverse", (PyCFunction)map_inverse, METH_NOARGS, inverse_doc },
    { "compose", (PyCFunction)map_compose, METH_O, compose_doc },
    { "apply", (PyCFunction)map_apply, METH_O, apply_map_doc },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef map_getset[] = {
    { "kind", (getter)map_kind, NULL,
      "'identity', 'bijective', 'injective with padding', 'not injective' or 'unknown'", NULL },
    { "padding", (getter)map_padding, NULL,
      "the predicate on the output indices that holds on padding (text), or None", NULL },
    { "shape", (getter)map_shape, NULL, "the extents of the inputs", NULL },
    { "output_shape", (getter)map_shape, NULL, "the extents of the outputs (padding included)", "out" },
    { NULL, NULL, NULL, NULL, NULL },
};

PyDoc_STRVAR(map_doc,
"IndexMap(map, shape)\n--\n\n"
"An index map over the box shape: a lambda, 'lambda n, c, h, w: (n, c // 4,\n"
"h, w, c % 4)', or two layouts, 'NCHW:NCHW4c'. str() is its normal form.\n"
"Raises lopt.Error when the map does not read or does not fit the box.");

static PyTypeObject MapType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "lopt.IndexMap",
    .tp_basicsize = sizeof(MapObject),
    .tp_dealloc = (destructor)map_dealloc,
    .tp_repr = (reprfunc)map_repr,
    .tp_str = (reprfunc)map_str,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = map_doc,
    .tp_methods = map_methods,
    .tp_getset = map_getset,
    .tp_init = (initproc)map_init,
    .tp_new = map_new,
};

/* ---- the module ---- */

PyDoc_STRVAR(passes_doc, "passes($module, /)\n--\n\nThe passes a pipeline may name: a list of (name, summary).");

static PyObject *py_passes(PyObject *mod, PyObject *unused)
{
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < lopt_pass_count(); i++) {
        PyObject *t = Py_BuildValue("(ss)", lopt_pass_name(i), lopt_pass_summary(i));
        if (!t || PyList_Append(list, t)) {
            Py_XDECREF(t);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(t);
    }
    return list;
}

static PyMethodDef functions[] = {
    { "parse", (PyCFunction)(void (*)(void))py_parse, METH_VARARGS | METH_KEYWORDS, parse_doc },
    { "passes", (PyCFunction)py_passes, METH_NOARGS, passes_doc },
    { NULL, NULL, 0, NULL },
};

PyDoc_STRVAR(lopt_doc,
"Tensor data-layout planning on TVMScript-like text (the library of lopt(1)).\n\n"
"    import lopt\n"
"    mod = lopt.parse(text)               # text from tvm's mod.script()\n"
"    out = mod.apply('convert-layout{conv2d=NCHW4c:OIHW4o},plan,fold')\n"
"    print(out.script(style='tvm'))       # tvm.script.from_source reads it\n"
"    y = out.run(inputs={'x': x})          # NumPy arrays in and out\n\n"
"parse reads a Module; Module.apply runs a pipeline of passes and returns a\n"
"new Module, Module.script prints, Module.run executes, Module.explain says\n"
"what the layout passes did. IndexMap answers index-map questions. Errors\n"
"raise lopt.Error, whose .diagnostics are Diagnostic records. lopt.passes()\n"
"lists the passes; they and their options are those of lopt(1). Each call\n"
"works on its own, so modules may be used from several threads; the long\n"
"calls (parse, apply, run, script) release the GIL.");

static struct PyModuleDef lopt_module_def = {
    PyModuleDef_HEAD_INIT, "lopt", lopt_doc, -1, functions, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_lopt(void)
{
    if (PyType_Ready(&ModuleType) < 0 || PyType_Ready(&MapType) < 0)
        return NULL;
    if (!DiagnosticType.tp_name && PyStructSequence_InitType2(&DiagnosticType, &diag_desc) < 0)
        return NULL;
    if (!ExplainType.tp_name && PyStructSequence_InitType2(&ExplainType, &explain_desc) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&lopt_module_def);
    if (!m)
        return NULL;
    Error = PyErr_NewExceptionWithDoc("lopt.Error",
                                      "lopt could not do what was asked; .diagnostics holds the Diagnostic records "
                                      "(file, line, column, severity, message, source_line), str() their text.",
                                      NULL, NULL);
    if (!Error)
        goto fail;
    LimitError = PyErr_NewExceptionWithDoc("lopt.LimitError",
                                           "A budget stopped the call: max_steps, timeout or max_memory (an "
                                           "lopt.Error; Ctrl-C raises KeyboardInterrupt instead, and an "
                                           "allocation that fails MemoryError; the library never aborts).",
                                           Error, NULL);
    if (!LimitError)
        goto fail;
    main_thread = pthread_self();
    Py_INCREF(Error);
    Py_INCREF(LimitError);
    Py_INCREF(&ModuleType);
    Py_INCREF(&MapType);
    Py_INCREF(&DiagnosticType);
    Py_INCREF(&ExplainType);
    if (PyModule_AddObject(m, "Error", Error) || PyModule_AddObject(m, "LimitError", LimitError) ||
        PyModule_AddObject(m, "Module", (PyObject *)&ModuleType) ||
        PyModule_AddObject(m, "IndexMap", (PyObject *)&MapType) ||
        PyModule_AddObject(m, "Diagnostic", (PyObject *)&DiagnosticType) ||
        PyModule_AddObject(m, "ExplainRecord", (PyObject *)&ExplainType) ||
        PyModule_AddStringConstant(m, "__version__", lopt_version()))
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
