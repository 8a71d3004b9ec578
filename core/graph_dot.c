/* graph_dot.c - a call graph (core/graph.c) as graphviz dot, drawn the way
 * pprof draws it: boxes sized by flat and coloured by cum (red grows, green
 * shrinks in a diff), edges as wide and as dark as their weight, a legend
 * saying what was dropped. Labels are in human units; every tooltip holds
 * the exact numbers. */
#include "core/graph.h"
#include "core/names.h"
#include "core/view.h"

#include <math.h>
#include <string.h>

/* Text inside a dot string: quotes and backslashes escaped, control
 * characters left out (labels put their own \n and \l). */
static void put_str(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, out);
	}
}

/* pprof's colour of a share in [-1, 1]: grey near 0, then towards red
 * (growth) or green (shrink); pale for a fill, strong for a line. */
static const char *dot_color(double score, int fill, char *buf, size_t len)
{
	double sat = fill ? 0.1 : 1.0, val = fill ? 0.93 : 0.7;
	score = score < -1 ? -1 : score > 1 ? 1 : score;
	if (fabs(score) < 0.2)
		sat *= fabs(score) / 0.2;
	score = score > 0 ? pow(score, 0.3) : score < 0 ? -pow(-score, 0.3) : 0;
	double r, g, b = val * (1 - sat);
	if (score < 0) {
		g = val;
		r = val * (1 + sat * score);
	} else {
		r = val;
		g = val * (1 - sat * score);
	}
	snprintf(buf, len, "#%02x%02x%02x", (unsigned)(r * 255), (unsigned)(g * 255), (unsigned)(b * 255));
	return buf;
}

static int is_objects(enum agg_metric m)
{
	return m == AGG_INUSE_OBJS || m == AGG_ALLOC_OBJS;
}

/* v in human units, signed in a diff ("+2.81 KiB"). */
static const char *human(char *buf, size_t len, int64_t v, const graph_opts *o)
{
	char b[48];
	view_fmt_value(b, sizeof(b), v, is_objects(o->metric));
	snprintf(buf, len, "%s%s", o->diff && v > 0 ? "+" : "", b);
	return buf;
}

static double share(int64_t v, int64_t total)
{
	return total ? (double)v * 100.0 / (double)total : 0.0;
}

/* The name a box shows: an unresolved frame as module+offset, a long C++
 * name cut in its argument list, anything still too long cut at the end. */
static const char *box_name(const prof *p, const char *name, char *buf, size_t len)
{
	char sb[1024], fb[1024];
	const char *s = name_fit(name_short(p, name, sb, sizeof(sb)), 60, "...", fb, sizeof(fb));
	size_t n = strlen(s);
	if (n <= 90) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	for (n = 87; n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
		;   /* on a UTF-8 boundary */
	snprintf(buf, len, "%.*s...", (int)n, s);
	return buf;
}

static void put_legend(FILE *out, const graph *g, const graph_opts *o)
{
	static const char *const type[] = { "inuse_space", "inuse_objects", "alloc_space", "alloc_objects" };
	char a[64], b[64];
	fputs("subgraph cluster_L { \"legend\" [shape=box fontsize=16 label=\"", out);
	if (o->title) {
		fputs("File: ", out);
		put_str(out, o->title);
		fputs("\\l", out);
	}
	fprintf(out, "Type: %s%s\\l", type[o->metric], o->diff ? " (NEW - BASE: red grew, green shrank)" : "");
	fprintf(out, "Showing nodes accounting for %s, %.2f%% of %s %s\\l", human(a, sizeof(a), g->shown, o),
		share(g->shown, g->total), human(b, sizeof(b), g->total, &(graph_opts){ .metric = o->metric }),
		o->diff ? "changed" : "total");
	fprintf(out, "Dropped %zu node%s (cum < %s)\\l", g->dropped_nodes, g->dropped_nodes == 1 ? "" : "s",
		human(a, sizeof(a), g->node_cut, &(graph_opts){ .metric = o->metric }));
	fprintf(out, "Dropped %zu edge%s (freq < %s)\\l", g->dropped_edges, g->dropped_edges == 1 ? "" : "s",
		human(a, sizeof(a), g->edge_cut, &(graph_opts){ .metric = o->metric }));
	if (g->capped)
		fprintf(out, "Showing top %zu nodes out of %zu\\l", g->nnodes, g->all_nodes);
	const char *unit = is_objects(o->metric) ? "objects" : "bytes";
	fprintf(out, "\" tooltip=\"total %lld %s; nodes with |cum| under %lld and edges under %lld dropped\"] }\n",
		(long long)g->total, unit, (long long)g->node_cut, (long long)g->edge_cut);
}

static void put_node(FILE *out, const graph *g, size_t i, uint64_t maxflat, const prof *p, const prof_nodemap *m,
		     const graph_opts *o)
{
	const graph_node *n = &g->nodes[i];
	const char *name = nodemap_name(m, n->node), *unit = is_objects(o->metric) ? "objects" : "bytes";
	char nb[1024], f[64], c[64], fc[16], lc[16];
	int inl = m->flags && (m->flags[n->node] & AGG_NODE_INLINE);
	/* pprof: 8 points, plus up to 16 by the square root of the node's share of the biggest flat. */
	int font = 8;
	if (n->flat && maxflat)
		font += (int)ceil(16.0 * sqrt((double)agg_magnitude(n->flat) / (double)maxflat));
	fprintf(out, "N%zu [label=\"", i + 1);
	put_str(out, box_name(p, name, nb, sizeof(nb)));
	if (n->flat)
		fprintf(out, "\\n%s (%.2f%%)\\nof %s (%.2f%%)", human(f, sizeof(f), n->flat, o), share(n->flat, g->total),
			human(c, sizeof(c), n->cum, o), share(n->cum, g->total));
	else
		fprintf(out, "\\n0 of %s (%.2f%%)", human(c, sizeof(c), n->cum, o), share(n->cum, g->total));
	double sc = g->total ? (double)n->cum / (double)g->total : 0;
	fprintf(out, "\" id=\"node%zu\" fontsize=%d shape=box%s tooltip=\"", i + 1, font,
		inl ? " style=\"filled,dashed\"" : "");
	put_str(out, name);
	fprintf(out, "%s\\nflat %lld %s, cum %lld %s\" color=\"%s\" fillcolor=\"%s\"]\n", inl ? " (inlined)" : "",
		(long long)n->flat, unit, (long long)n->cum, unit, dot_color(sc, 0, lc, sizeof(lc)),
		dot_color(sc, 1, fc, sizeof(fc)));
}

static void put_edge(FILE *out, const graph *g, const graph_edge *e, const prof_nodemap *m, const graph_opts *o)
{
	char w[64], col[16];
	uint64_t mag = agg_magnitude(e->w), tot = (uint64_t)g->total;
	fprintf(out, "N%u -> N%u [label=\" %s%s\"", e->from + 1, e->to + 1, human(w, sizeof(w), e->w, o),
		e->is_inline ? "\\n (inline)" : "");
	if (tot) {
		/* pprof: heavier edges pull harder on the layout and are drawn wider. */
		uint64_t weight = 1 + (mag * 100 / tot > 100 ? 100 : mag * 100 / tot);
		uint64_t pen = 1 + (mag * 5 / tot > 5 ? 5 : mag * 5 / tot);
		if (weight > 1)
			fprintf(out, " weight=%llu", (unsigned long long)weight);
		if (pen > 1)
			fprintf(out, " penwidth=%llu", (unsigned long long)pen);
		fprintf(out, " color=\"%s\"", dot_color((double)e->w / (double)g->total, 0, col, sizeof(col)));
	}
	for (int k = 0; k < 2; k++) {
		fputs(k ? " labeltooltip=\"" : " tooltip=\"", out);
		put_str(out, nodemap_name(m, g->nodes[e->from].node));
		fputs(e->residual ? " ... " : " -> ", out);
		put_str(out, nodemap_name(m, g->nodes[e->to].node));
		fprintf(out, " (%lld %s)%s\"", (long long)e->w, is_objects(o->metric) ? "objects" : "bytes",
			e->is_inline ? " (inline)" : "");
	}
	if (e->residual)
		fputs(" style=\"dotted\"", out);
	fputs("]\n", out);
}

int graph_write_dot(FILE *out, const graph *g, const prof *p, const prof_nodemap *m, const graph_opts *o)
{
	fputs("digraph \"mprof\" {\n"
	      "node [style=filled fillcolor=\"#f8f8f8\"]\n", out);
	put_legend(out, g, o);
	uint64_t maxflat = 0;
	for (size_t i = 0; i < g->nnodes; i++)
		if (agg_magnitude(g->nodes[i].flat) > maxflat)
			maxflat = agg_magnitude(g->nodes[i].flat);
	for (size_t i = 0; i < g->nnodes; i++)
		put_node(out, g, i, maxflat, p, m, o);
	for (size_t j = 0; j < g->nedges; j++)
		put_edge(out, g, &g->edges[j], m, o);
	fputs("}\n", out);
	return ferror(out) ? -1 : 0;
}
