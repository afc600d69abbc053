/*
 * relay: the do-nothing baseline. Subscribes wearables/+/# at QoS 1 and republishes every
 * message unchanged (payload and content type) at QoS 1 under relay/<topic>; no decoding.
 *
 * Every 50 ms, when the count changed, it prints "<batches received> <unix time of the last
 * one>" (topics with /batched/ only), so the benchmark sees when everything arrived.
 *
 * Build: cc -O2 -o relay relay.c -lmosquitto -lpthread
 */
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile long batches;
static volatile double last_at;
static volatile sig_atomic_t stop;

static double now_unix(void) {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_connect(struct mosquitto *m, void *obj, int rc, int flags, const mosquitto_property *props) {
	(void)obj; (void)flags; (void)props;
	if (rc != 0) {
		fprintf(stderr, "connect refused: %d\n", rc);
		exit(1);
	}
	mosquitto_subscribe_v5(m, NULL, "wearables/+/#", 1, 0, NULL);
}

static void on_subscribe(struct mosquitto *m, void *obj, int mid, int count, const int *granted, const mosquitto_property *props) {
	(void)m; (void)obj; (void)mid; (void)count; (void)granted; (void)props;
	printf("subscribed\n");
	fflush(stdout);
}

static void on_message(struct mosquitto *m, void *obj, const struct mosquitto_message *msg, const mosquitto_property *props) {
	(void)obj;
	char topic[300];
	snprintf(topic, sizeof topic, "relay/%s", msg->topic);
	char *type = NULL;
	mosquitto_property *out = NULL;
	if (mosquitto_property_read_string(props, MQTT_PROP_CONTENT_TYPE, &type, false)) {
		mosquitto_property_add_string(&out, MQTT_PROP_CONTENT_TYPE, type);
		free(type);
	}
	mosquitto_publish_v5(m, NULL, topic, msg->payloadlen, msg->payload, 1, false, out);
	mosquitto_property_free_all(&out);
	if (strstr(msg->topic, "/batched/")) {
		last_at = now_unix();
		__atomic_add_fetch(&batches, 1, __ATOMIC_SEQ_CST);
	}
}

static void on_signal(int sig) {
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: relay HOST PORT\n");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	mosquitto_lib_init();
	char id[64];
	snprintf(id, sizeof id, "relay-ratio-relay-%d", (int)getpid());
	struct mosquitto *m = mosquitto_new(id, true, NULL);
	mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
	/* The gateway's default mqtt.receiveMaximum, so both subscribers get the same window. */
	mosquitto_int_option(m, MOSQ_OPT_RECEIVE_MAXIMUM, 256);
	mosquitto_connect_v5_callback_set(m, on_connect);
	mosquitto_subscribe_v5_callback_set(m, on_subscribe);
	mosquitto_message_v5_callback_set(m, on_message);
	if (mosquitto_connect_bind_v5(m, argv[1], atoi(argv[2]), 60, NULL, NULL) != MOSQ_ERR_SUCCESS) {
		fprintf(stderr, "connect failed\n");
		return 1;
	}
	mosquitto_loop_start(m);
	long printed = -1;
	while (!stop) {
		long n = __atomic_load_n(&batches, __ATOMIC_SEQ_CST);
		if (n != printed) {
			printf("%ld %.6f\n", n, last_at);
			fflush(stdout);
			printed = n;
		}
		usleep(50000);
	}
	mosquitto_disconnect(m);
	mosquitto_loop_stop(m, false);
	mosquitto_destroy(m);
	mosquitto_lib_cleanup();
	return 0;
}
