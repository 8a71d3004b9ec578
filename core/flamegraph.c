/* flamegraph.c - an interactive SVG flame graph, self-contained: the
 * frames are merged into a tree root first (children ordered by name, as
 * flamegraph.pl does), laid out bottom-up, and a small inline script gives
 * click-to-zoom, search (regex, matched share shown) and reset.
 * Unresolved frames are labelled "module+0xoffset" (core/names.h).
 * Diff mode (p from diff_build): a frame's width is the sum of the absolute
 * deltas under it, its colour the net delta (red grew, blue shrank). */
#include "core/flamegraph.h"
#include "core/names.h"
#include "core/savefile.h"
#include "core/u64map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FG_WIDTH 1200.0
#define FG_PAD 10.0
#define FG_ROW 16
#define FG_TOP 52

typedef struct fgnode {
	uint32_t parent, name;   /* name: node id in m, or frame index */
	uint32_t first, next;    /* children, after linking */
	int64_t width, net;      /* width: sum of |w|; net: signed sum */
	double x;
	uint32_t depth;
} fgnode;

typedef struct fg {
	fgnode *n;
	size_t len, cap;
	u64map child;            /* parent << 32 | name -> node */
	const prof *p;
	const prof_nodemap *m;
} fg;

static uint32_t fg_child(fg *g, uint32_t parent, uint32_t name)
{
	uint64_t key = (uint64_t)parent << 32 | name;
	size_t at = u64map_slot(&g->child, key);
	if (g->child.vals[at] != U64MAP_NONE)
		return g->child.vals[at];
	if (g->len >= U64MAP_NONE || vec_grow((void **)&g->n, &g->cap, g->len + 1, sizeof(*g->n)) ||
	    u64map_add_at(&g->child, at, key, (uint32_t)g->len))
		return UINT32_MAX;
	uint32_t id = (uint32_t)g->len++;
	g->n[id] = (fgnode){ .parent = parent, .name = name, .first = UINT32_MAX, .next = UINT32_MAX,
			     .depth = g->n[parent].depth + 1 };
	return id;
}

static const char *fg_name(const fg *g, uint32_t id, char *buf, size_t len)
{
	if (id == 0)
		return "all";
	return g->m ? nodemap_name(g->m, g->n[id].name) : prof_frame_name(g->p, g->n[id].name, buf, len);
}

static const fg *sort_g;
static int child_cmp(const void *a, const void *b)
{
	char b1[32], b2[32];
	return strcmp(fg_name(sort_g, *(const uint32_t *)a, b1, sizeof(b1)),
		      fg_name(sort_g, *(const uint32_t *)b, b2, sizeof(b2)));
}

/* Adds one sample's path (root first) with weight w. */
static int fg_add(fg *g, const uint32_t *fr, uint32_t depth, int64_t w, int diff)
{
	uint32_t cur = 0;
	int64_t width = w < 0 ? -w : w;
	g->n[0].width += width;
	g->n[0].net += w;
	for (uint32_t d = depth; d-- > 0;) {
		uint32_t f = fr[d];
		uint32_t lo = g->m ? g->m->off[f] : 0, hi = g->m ? g->m->off[f + 1] : 1;
		for (uint32_t k = hi; k-- > lo;) {
			cur = fg_child(g, cur, g->m ? g->m->nodes[k] : f);
			if (cur == UINT32_MAX)
				return -1;
			g->n[cur].width += width;
			g->n[cur].net += w;
		}
	}
	(void)diff;
	return 0;
}

void flamegraph_put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, out);
		}
	}
}

/* Characters of s[0..n) as the script counts them (one per UTF-8 character). */
static size_t chars(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* The name cut to what fits in w pixels (7 per character), a C++ argument
 * list in its middle (core/names.h), else at the end on a UTF-8 boundary;
 * the script's cut() redoes this after a zoom. */
static void put_label(FILE *out, const char *name, double w)
{
	long fit = (long)((w - 6) / 7);
	if (fit < 3)
		return;
	char fb[1024];
	name = name_fit(name, (int)fit, "..", fb, sizeof(fb));
	size_t len = strlen(name);
	if ((size_t)fit >= chars(name, len)) {
		flamegraph_put_escaped(out, name);
		return;
	}
	char buf[512];
	size_t n = 0, c = 0;
	while (n < len && n < sizeof(buf) - 3 && c < (size_t)fit - 2) {
		n++;
		while (n < len && ((unsigned char)name[n] & 0xc0) == 0x80)
			n++;
		c++;
	}
	memcpy(buf, name, n);
	memcpy(buf + n, "..", 3);
	flamegraph_put_escaped(out, buf);
}

static void color(const char *name, int64_t net, int64_t width, int diff, char *buf, size_t len)
{
	if (diff) {
		/* White for no change, up to full red (growth) or blue (shrink). */
		double f = width ? (double)(net < 0 ? -net : net) / (double)width : 0;
		int c = 255 - (int)(f * 200);
		if (net > 0)
			snprintf(buf, len, "rgb(255,%d,%d)", c, c);
		else if (net < 0)
			snprintf(buf, len, "rgb(%d,%d,255)", c, c);
		else
			snprintf(buf, len, "rgb(250,250,250)");
		return;
	}
	uint32_t h = 2166136261u;
	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	snprintf(buf, len, "rgb(%u,%u,%u)", 205 + (h % 50), (h >> 8) % 230, (h >> 16) % 55);
}

static const char fg_script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"var svg, frames, det, W, PAD, zoomed = null;\n"
	"function init(evt) {\n"
	"  svg = document.documentElement; det = document.getElementById('details');\n"
	"  W = +svg.getAttribute('width'); PAD = " "10" ";\n"
	"  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
	"  frames.forEach(function (g) { var r = g.querySelector('rect');\n"
	"    g.ox = +r.getAttribute('x'); g.ow = +r.getAttribute('width');\n"
	"    g.oy = +r.getAttribute('y'); g.name = g.querySelector('title').textContent;\n"
	"    g.fname = g.getAttribute('data-name'); g.args = g.getAttribute('data-args');\n"
	"    if (g.args) g.args = g.args.split(' ').map(Number);\n"
	"    g.onclick = function () { zoom(g); };\n"
	"    g.onmouseover = function () { det.textContent = g.name; };\n"
	"    g.onmouseout = function () { det.textContent = ' '; }; fit(g); });\n"
	"}\n"
	"function fit(g) { var t = g.querySelector('text'), r = g.querySelector('rect');\n"
	"  var w = +r.getAttribute('width'), n = Math.floor((w - 6) / 7);\n"
	"  t.setAttribute('x', +r.getAttribute('x') + 3);\n"
	"  t.textContent = n < 3 ? '' : cut(g.fname, g.args, n); }\n"
	"function cut(s, a, n) { if (s.length <= n) return s;\n"
	"  if (a) { var o = a[0], c = a[1], room = n - (o + 1) - 2 - (s.length - c);\n"
	"    if (room >= 0) return s.substring(0, o + 1 + Math.min(room, c - o - 1)) + '..' + s.substring(c);\n"
	"    if (o + 4 <= n) s = s.substring(0, o + 1) + '..' + s.substring(c);\n"
	"    else if (n - 6 >= 1) return '..' + s.substring(o - (n - 6), o) + '(..)'; }\n"
	"  return s.length <= n ? s : s.substring(0, n - 2) + '..'; }\n"
	"function zoom(z) { zoomed = z; var s = (W - 2 * PAD) / z.ow;\n"
	"  frames.forEach(function (g) { var r = g.querySelector('rect');\n"
	"    var inside = g.ox >= z.ox - 1e-6 && g.ox + g.ow <= z.ox + z.ow + 1e-6;\n"
	"    var under = g.oy > z.oy && g.ox <= z.ox + 1e-6 && g.ox + g.ow >= z.ox + z.ow - 1e-6;\n"
	"    if (inside && g.oy <= z.oy) { r.setAttribute('x', PAD + (g.ox - z.ox) * s);\n"
	"      r.setAttribute('width', g.ow * s); g.style.display = ''; g.style.opacity = 1; }\n"
	"    else if (under) { r.setAttribute('x', PAD); r.setAttribute('width', W - 2 * PAD);\n"
	"      g.style.display = ''; g.style.opacity = 0.5; }\n"
	"    else g.style.display = 'none';\n"
	"    fit(g); });\n"
	"  document.getElementById('unzoom').style.opacity = 1; }\n"
	"function unzoom() { zoomed = null; frames.forEach(function (g) { var r = g.querySelector('rect');\n"
	"    r.setAttribute('x', g.ox); r.setAttribute('width', g.ow); g.style.display = '';\n"
	"    g.style.opacity = 1; fit(g); });\n"
	"  document.getElementById('unzoom').style.opacity = 0; }\n"
	"function search() { var t = prompt('Search (regular expression):', ''); if (t === null) return;\n"
	"  var re; try { re = new RegExp(t); } catch (e) { alert(e); return; }\n"
	"  var root = frames[0], sum = 0, seen = [];\n"
	"  frames.forEach(function (g) { var r = g.querySelector('rect');\n"
	"    if (!r.orig) r.orig = r.getAttribute('fill');\n"
	"    if (t !== '' && re.test(g.fname)) { r.setAttribute('fill', 'rgb(230,0,230)');\n"
	"      if (!seen.some(function (s) { return g.ox >= s.ox && g.ox + g.ow <= s.ox + s.ow; })) {\n"
	"        seen.push(g); sum += g.ow; } }\n"
	"    else r.setAttribute('fill', r.orig); });\n"
	"  document.getElementById('matched').textContent = t === '' ? ' ' :\n"
	"    'Matched: ' + (100 * sum / root.ow).toFixed(1) + '%'; }\n"
	"]]></script>\n";

int flamegraph_write(FILE *out, const prof *p, const prof_nodemap *m, enum agg_metric metric, int diff,
		     const char *title, prof_error *err)
{
	fg g = { .p = p, .m = m, .cap = 1024 };
	uint32_t *order = NULL, *stack = NULL;
	int rc = -1;
	g.n = malloc(g.cap * sizeof(*g.n));
	if (!g.n || u64map_init(&g.child, 2048))
		goto nomem;
	g.n[0] = (fgnode){ .parent = UINT32_MAX, .first = UINT32_MAX, .next = UINT32_MAX };
	g.len = 1;
	for (size_t i = 0; i < p->samples.len; i++) {
		int64_t v[AGG_NMETRIC];
		agg_sample_vals(&p->samples.v[i], v);
		if (v[metric] == 0 || (!diff && v[metric] < 0))
			continue;
		const prof_sample *s = &p->samples.v[i];
		if (fg_add(&g, prof_stack_frames(p, s->stack), p->stacks.v[s->stack].depth, v[metric], diff))
			goto nomem;
	}
	/* Children by name: link them in sorted order, then lay out depth first. */
	order = malloc(g.len * sizeof(*order));
	stack = malloc(g.len * sizeof(*stack));
	if (!order || !stack)
		goto nomem;
	for (size_t i = 0; i < g.len; i++)
		order[i] = (uint32_t)i;
	sort_g = &g;
	qsort(order + 1, g.len - 1, sizeof(*order), child_cmp);
	for (size_t i = g.len; i-- > 1;) {   /* reverse: pushing front keeps name order */
		fgnode *c = &g.n[order[i]];
		c->next = g.n[c->parent].first;
		g.n[c->parent].first = order[i];
	}
	uint32_t maxdepth = 0;
	double scale = g.n[0].width ? (FG_WIDTH - 2 * FG_PAD) / (double)g.n[0].width : 0;
	size_t sp = 0;
	g.n[0].x = FG_PAD;
	stack[sp++] = 0;
	while (sp) {
		fgnode *n = &g.n[stack[--sp]];
		if (n->depth > maxdepth)
			maxdepth = n->depth;
		double x = n->x;
		for (uint32_t c = n->first; c != UINT32_MAX; c = g.n[c].next) {
			g.n[c].x = x;
			x += (double)g.n[c].width * scale;
			stack[sp++] = c;
		}
	}
	int height = FG_TOP + (int)(maxdepth + 1) * FG_ROW + 30;
	static const char *mnames[] = { "in-use bytes", "in-use objects", "allocated bytes", "allocated objects" };
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		     "<svg version=\"1.1\" width=\"%d\" height=\"%d\" onload=\"init(evt)\" viewBox=\"0 0 %d %d\" "
		     "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n",
		(int)FG_WIDTH, height, (int)FG_WIDTH, height);
	fputs("<style type=\"text/css\">text { font-family: monospace; font-size: 12px; fill: rgb(0,0,0); }"
	      " g.f:hover { stroke: black; stroke-width: 0.5; cursor: pointer; }"
	      " .c { cursor: pointer; }</style>\n", out);
	fputs(fg_script, out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"rgb(248,248,240)\"/>\n");
	fprintf(out, "<text x=\"%d\" y=\"20\" text-anchor=\"middle\" style=\"font-size: 16px\">", (int)FG_WIDTH / 2);
	flamegraph_put_escaped(out, diff ? "Diff flame graph: " : "Flame graph: ");
	flamegraph_put_escaped(out, mnames[metric]);
	if (title) {
		fputs(" - ", out);
		flamegraph_put_escaped(out, title);
	}
	fputs("</text>\n", out);
	fprintf(out, "<text id=\"unzoom\" class=\"c\" x=\"%d\" y=\"40\" style=\"opacity: 0\" onclick=\"unzoom()\">"
		     "Reset Zoom</text>\n", (int)FG_PAD);
	fprintf(out, "<text id=\"search\" class=\"c\" x=\"%d\" y=\"40\" text-anchor=\"end\" onclick=\"search()\">"
		     "Search</text>\n", (int)(FG_WIDTH - FG_PAD));
	fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n",
		(int)(FG_WIDTH - FG_PAD), height - 10);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", (int)FG_PAD, height - 10);
	char nb[32], sb[512], fill[40];
	for (size_t i = 0; i < g.len; i++) {
		const fgnode *n = &g.n[i];
		double w = (double)n->width * scale;
		if (w < 0.1)
			continue;   /* too thin to see or click */
		const char *name = fg_name(&g, (uint32_t)i, nb, sizeof(nb));
		double y = FG_TOP + (double)(maxdepth - n->depth) * FG_ROW;
		color(name, n->net, n->width, diff, fill, sizeof(fill));
		/* Boxes and search show the short name; the title (details line) the whole one. */
		const char *shown = name_short(p, name, sb, sizeof(sb));
		fputs("<g class=\"f\" data-name=\"", out);
		flamegraph_put_escaped(out, shown);
		size_t ao, ac;
		if (!name_args(shown, &ao, &ac))   /* where the script may cut in the middle */
			fprintf(out, "\" data-args=\"%zu %zu", chars(shown, ao), chars(shown, ac));
		fputs("\"><title>", out);
		flamegraph_put_escaped(out, name);
		if (diff)
			fprintf(out, " (%+lld, %lld changed, %.2f%%)", (long long)n->net, (long long)n->width,
				100.0 * (double)n->width / (double)g.n[0].width);
		else
			fprintf(out, " (%lld, %.2f%%)", (long long)n->width,
				100.0 * (double)n->width / (double)g.n[0].width);
		fprintf(out, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>"
			     "<text x=\"%.2f\" y=\"%.1f\">",
			n->x, y, w, FG_ROW - 1, fill, n->x + 3, y + FG_ROW - 4);
		put_label(out, shown, w);
		fputs("</text></g>\n", out);
	}
	fputs("</svg>\n", out);
	rc = ferror(out) ? -1 : 0;
	if (rc)
		prof_errorf(err, "write failed: %s", strerror(errno));
	goto out;
nomem:
	prof_errorf(err, "out of memory");
out:
	free(g.n);
	u64map_free(&g.child);
	free(order);
	free(stack);
	return rc;
}

struct flame_ctx {
	const prof *p;
	const prof_nodemap *m;
	enum agg_metric metric;
	int diff;
	const char *title;
};

static int write_flame(FILE *out, void *arg, prof_error *werr)
{
	const struct flame_ctx *c = arg;
	return flamegraph_write(out, c->p, c->m, c->metric, c->diff, c->title, werr);
}

int flamegraph_save(const prof *p, const prof_nodemap *m, enum agg_metric metric, int diff,
		    const char *title, const char *path, prof_error *err)
{
	struct flame_ctx c = { p, m, metric, diff, title };
	return savefile_stream(path, write_flame, &c, err);
}
