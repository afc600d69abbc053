/*
 * loadgen: publishes pre-generated watch traffic (wearable-sim generate) in real time.
 *
 * Device i (id "w<i>") replays template i mod T under its own topic. First every device's prime
 * frames (hello, status, authorization, workout) are published at once; after "primed" is
 * printed, the tool reads the start time (Unix seconds) from stdin and publishes the batches of
 * second s of device i at start + s + i/N (devices spread evenly over each second), QoS 1, over
 * --connections shared connections. Every publish call's time goes to --log
 * ("watch<TAB>frame<TAB>unix time"), frame being the template's batch index (index.tsv order).
 *
 * It never waits for the broker: libmosquitto queues what the in-flight window does not take,
 * so a slow broker shows as unacknowledged frames and drain time, not as a slower schedule.
 * The last line says how late the tool itself was ("max lag"): if that is large the load
 * generator, not the system under test, was the limit; and the CPU seconds it used while
 * publishing the batches ("cpu").
 *
 * Build: cc -O2 -o loadgen loadgen.c -lmosquitto -lpthread
 */
#include <errno.h>
#include <sys/resource.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
	uint32_t template;
	uint8_t phase, qos, retain;
	double time;
	char stream[64];
	char content_type[64];
	uint32_t length;
	const uint8_t *payload;
	uint32_t batch_index; /* index among its template's batches (index.tsv order) */
} frame_t;

typedef struct {
	double when;
	uint32_t watch;
	uint32_t frame;
} slot_t;

static volatile long acked, connected;

static double now_unix(void) {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds (user + system) of this process, all threads. */
static double cpu_seconds(void) {
	struct rusage usage;
	getrusage(RUSAGE_SELF, &usage);
	return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static void sleep_until(double when) {
	for (;;) {
		double left = when - now_unix();
		if (left <= 0) return;
		struct timespec ts = {(time_t)left, (long)((left - (time_t)left) * 1e9)};
		nanosleep(&ts, NULL);
	}
}

static void on_connect(struct mosquitto *m, void *obj, int rc, int flags, const mosquitto_property *props) {
	(void)m; (void)obj; (void)flags; (void)props;
	if (rc == 0) __atomic_add_fetch(&connected, 1, __ATOMIC_SEQ_CST);
	else fprintf(stderr, "connect refused: %d\n", rc);
}

static void on_publish(struct mosquitto *m, void *obj, int mid, int reason, const mosquitto_property *props) {
	(void)m; (void)obj; (void)mid; (void)reason; (void)props;
	__atomic_add_fetch(&acked, 1, __ATOMIC_SEQ_CST);
}

static int by_time(const void *a, const void *b) {
	double x = ((const slot_t *)a)->when, y = ((const slot_t *)b)->when;
	return x < y ? -1 : x > y;
}

static uint32_t u32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t u16(const uint8_t *p) { return p[0] | p[1] << 8; }

static void usage(void) {
	fprintf(stderr, "usage: loadgen --port P --frames FILE --watches N --seconds S [--host H] [--connections C] [--log FILE]\n");
	exit(2);
}

int main(int argc, char **argv) {
	const char *host = "127.0.0.1", *path = NULL, *log_path = NULL;
	int port = 0, watches = 0, seconds = 0, connections = 4;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--host")) host = argv[i + 1];
		else if (!strcmp(argv[i], "--port")) port = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--frames")) path = argv[i + 1];
		else if (!strcmp(argv[i], "--watches")) watches = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--seconds")) seconds = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--connections")) connections = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--log")) log_path = argv[i + 1];
		else usage();
	}
	if (!path || port <= 0 || watches <= 0 || seconds <= 0 || connections <= 0) usage();

	/* Read the frame file. */
	FILE *f = fopen(path, "rb");
	if (!f) { perror(path); return 1; }
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *blob = malloc(size);
	if (fread(blob, 1, size, f) != (size_t)size || memcmp(blob, "WGF1", 4)) { fprintf(stderr, "bad frame file\n"); return 1; }
	fclose(f);
	uint32_t templates = u32(blob + 4), count = u32(blob + 8);
	frame_t *frames = calloc(count, sizeof *frames);
	uint32_t *batches_of = calloc(templates, sizeof *batches_of);
	const uint8_t *p = blob + 12;
	double first_batch_time = 1e300;
	for (uint32_t i = 0; i < count; i++) {
		frame_t *fr = &frames[i];
		fr->template = u32(p);
		fr->phase = p[4]; fr->qos = p[5]; fr->retain = p[6];
		memcpy(&fr->time, p + 8, 8);
		uint16_t sl = u16(p + 16), cl = u16(p + 18);
		fr->length = u32(p + 20);
		p += 24;
		if (sl >= sizeof fr->stream || cl >= sizeof fr->content_type) { fprintf(stderr, "bad frame file\n"); return 1; }
		memcpy(fr->stream, p, sl); p += sl;
		memcpy(fr->content_type, p, cl); p += cl;
		fr->payload = p; p += fr->length;
		if (fr->phase == 1) {
			fr->batch_index = batches_of[fr->template]++;
			if (fr->time < first_batch_time) first_batch_time = fr->time;
		}
	}

	/* The schedule: every batch of every device within --seconds. */
	size_t slots_cap = 0, nslots = 0;
	size_t *per_template = calloc(templates, sizeof *per_template);
	for (uint32_t i = 0; i < count; i++)
		if (frames[i].phase == 1 && frames[i].time - first_batch_time < seconds) per_template[frames[i].template]++;
	for (int w = 0; w < watches; w++) slots_cap += per_template[w % templates];
	slot_t *slots = malloc(slots_cap * sizeof *slots);
	for (int w = 0; w < watches; w++) {
		double offset = (double)w / watches;
		for (uint32_t i = 0; i < count; i++) {
			const frame_t *fr = &frames[i];
			if (fr->phase != 1 || fr->template != (uint32_t)w % templates || fr->time - first_batch_time >= seconds) continue;
			slots[nslots++] = (slot_t){fr->time - first_batch_time + offset, (uint32_t)w, i};
		}
	}
	qsort(slots, nslots, sizeof *slots, by_time);

	mosquitto_lib_init();
	struct mosquitto **clients = calloc(connections, sizeof *clients);
	for (int c = 0; c < connections; c++) {
		char id[64];
		snprintf(id, sizeof id, "relay-ratio-load-%d-%d", (int)getpid(), c);
		clients[c] = mosquitto_new(id, true, NULL);
		mosquitto_int_option(clients[c], MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
		mosquitto_connect_v5_callback_set(clients[c], on_connect);
		mosquitto_publish_v5_callback_set(clients[c], on_publish);
		if (mosquitto_connect_bind_v5(clients[c], host, port, 60, NULL, NULL) != MOSQ_ERR_SUCCESS) { fprintf(stderr, "connect failed\n"); return 1; }
		mosquitto_loop_start(clients[c]);
	}
	for (int i = 0; i < 1000 && __atomic_load_n(&connected, __ATOMIC_SEQ_CST) < connections; i++) usleep(10000);
	if (connected < connections) { fprintf(stderr, "not connected\n"); return 1; }

	/* One property list per content type (only two exist). */
	mosquitto_property *json = NULL, *binary = NULL;
	mosquitto_property_add_string(&json, MQTT_PROP_CONTENT_TYPE, "application/json");
	mosquitto_property_add_string(&binary, MQTT_PROP_CONTENT_TYPE, "application/x-protobuf");
#define PROPS(fr) (strcmp((fr)->content_type, "application/json") ? binary : json)

	long sent = 0;
	char topic[256];
	for (int w = 0; w < watches; w++) {
		for (uint32_t i = 0; i < count; i++) {
			const frame_t *fr = &frames[i];
			if (fr->phase != 0 || fr->template != (uint32_t)w % templates) continue;
			snprintf(topic, sizeof topic, "wearables/w%d/%s", w, fr->stream);
			mosquitto_publish_v5(clients[w % connections], NULL, topic, fr->length, fr->payload, fr->qos, fr->retain, PROPS(fr));
			if (fr->qos > 0) sent++;
		}
	}
	for (int i = 0; i < 3000 && __atomic_load_n(&acked, __ATOMIC_SEQ_CST) < sent; i++) usleep(10000);
	printf("primed %ld of %ld\n", acked, sent);
	fflush(stdout);

	double start;
	if (scanf("%lf", &start) != 1) { fprintf(stderr, "no start time on stdin\n"); return 1; }
	double cpu_start = cpu_seconds();
	double *sent_at = malloc(nslots * sizeof *sent_at);
	long primed = sent;
	double max_lag = 0;
	for (size_t s = 0; s < nslots; s++) {
		const slot_t *slot = &slots[s];
		const frame_t *fr = &frames[slot->frame];
		sleep_until(start + slot->when);
		snprintf(topic, sizeof topic, "wearables/w%u/%s", slot->watch, fr->stream);
		double t = now_unix();
		int rc = mosquitto_publish_v5(clients[slot->watch % connections], NULL, topic, fr->length, fr->payload, 1, false, PROPS(fr));
		if (rc != MOSQ_ERR_SUCCESS) fprintf(stderr, "publish: %s\n", mosquitto_strerror(rc));
		sent_at[s] = t;
		if (t - (start + slot->when) > max_lag) max_lag = t - (start + slot->when);
		sent++;
	}
	double last_send = nslots ? sent_at[nslots - 1] : start;
	for (int i = 0; i < 12000 && __atomic_load_n(&acked, __ATOMIC_SEQ_CST) < sent; i++) usleep(5000);
	double acked_at = now_unix();
	printf("done batches=%zu acked=%ld last_send=%.6f all_acked=%.6f max_lag=%.3f cpu=%.3f\n", nslots, acked - primed, last_send,
	       acked >= sent ? acked_at : -1.0, max_lag, cpu_seconds() - cpu_start);
	fflush(stdout);
	if (log_path) {
		FILE *log = fopen(log_path, "w");
		for (size_t s = 0; s < nslots && log; s++)
			fprintf(log, "%u\t%u\t%.6f\n", slots[s].watch, frames[slots[s].frame].batch_index, sent_at[s]);
		if (log) fclose(log);
	}
	for (int c = 0; c < connections; c++) {
		mosquitto_disconnect(clients[c]);
		mosquitto_loop_stop(clients[c], false);
		mosquitto_destroy(clients[c]);
	}
	mosquitto_lib_cleanup();
	return 0;
}
