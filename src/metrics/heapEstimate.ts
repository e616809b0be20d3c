// How much client heap a consumer's message cache takes: the message bodies (ProcessQueue#msgSize counts
// only those, spec §3.1) plus what RocketMQ builds around each cached message. The model keeps bodies
// as sizes; this file says what the Java objects around them weigh, so "how much heap?" has an answer.
//
// Sizes are JOL-style shallow sizes for a 64-bit HotSpot JVM with compressed oops and compressed class
// pointers (heaps below 32 GiB; the default): a 12-byte object header, 4-byte references, objects
// aligned to 8 bytes, arrays with a 16-byte header (12 + the int length). Strings are JDK 9+ compact
// (Latin-1) strings: a 24-byte String (value ref, hash int, coder byte, hashIsZero boolean) and a
// byte[] of one byte per character. A JDK 8 JVM stores char[] (2 bytes a character) and is larger.
//
// What is on the heap per cached message, from the RocketMQ sources (commit 8fc57f1468, see the spec's
// header; CM/ = common/…/common/, C/ = client/…/client/):
//   - MessageDecoder.decode(…, isClient = true) (CM/message/MessageDecoder.java) builds one
//     MessageClientExt per message (no fields of its own; MessageExt's and Message's), a new topic
//     String, two new InetSocketAddress (bornHost, storeHost), the body byte[] and the offset msgId
//     String; string2messageProperties parses the properties into `new HashMap<>(128)`, so every
//     key and value is a new String (substring copies) and the table has 128 slots.
//   - PullAPIWrapper#processPullResult (C/impl/consumer/PullAPIWrapper.java) adds MIN_OFFSET and
//     MAX_OFFSET (new value Strings, constant keys) and sets brokerName (a shared String).
//   - ProcessQueue#putMessage (C/impl/consumer/ProcessQueue.java) keys it in msgTreeMap, a
//     TreeMap<Long, MessageExt>: a TreeMap.Entry and a boxed Long (offsets are beyond Long's cache).
//   - ConsumeMessageConcurrentlyService#submitConsumeRequest (C/impl/consumer/…, spec §7.1) submits,
//     with consumeMessageBatchMaxSize 1, one task per message that lives until the message is consumed.
//
// The properties are those of a message sent by DefaultMQProducer with a tag and one key, through a
// broker with default settings: UNIQ_KEY (32 hex characters, MessageClientIDSetter), WAIT ("true",
// Message's constructor), TAGS and KEYS (the producer's), CLUSTER ("DefaultCluster", added by
// SendMessageProcessor), MSG_REGION ("DefaultRegion") and TRACE_ON ("true", added by
// AbstractSendMessageProcessor), then MIN_OFFSET and MAX_OFFSET (7 digits each) from the client.

/** One line of the per-message footprint: what, how many bytes, and how the figure is made up. */
export interface HeapFootprintItem {
  item: string;
  bytes: number;
  derivation: string;
}

/** A byte[] (or a compact String's value) of n elements: 16-byte header + n, aligned to 8. */
export function byteArrayBytes(n: number): number {
  return align8(16 + n);
}

/** A compact (Latin-1) String of n characters: the 24-byte String plus its byte[]. */
export function stringBytes(n: number): number {
  return 24 + byteArrayBytes(n);
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

/** The property keys and values parsed per message (character counts), in the order listed above. */
const PARSED_KEYS = ["UNIQ_KEY", "WAIT", "TAGS", "KEYS", "CLUSTER", "MSG_REGION", "TRACE_ON"];
/** Values: UNIQ_KEY 32 hex, "true", "TagA", a 16-character key, "DefaultCluster", "DefaultRegion", "true". */
const PARSED_VALUE_LENGTHS = [32, 4, 4, 16, 14, 13, 4];
/** MIN_OFFSET and MAX_OFFSET values: 7-digit offsets (their keys are MessageConst constants, shared). */
const OFFSET_VALUE_LENGTHS = [7, 7];
/** A 16-character topic name, decoded into a new String per message. */
const TOPIC_LENGTH = 16;
/** The offset msgId: hex of store host IPv4 (4) + port (4) + commit-log offset (8) = 16 bytes → 32 characters. */
const MSG_ID_LENGTH = 32;
const PROPERTY_ENTRIES = PARSED_KEYS.length + OFFSET_VALUE_LENGTHS.length;

/** Every figure of the per-message footprint; HEAP_BYTES_PER_MESSAGE is their sum. */
export const HEAP_FOOTPRINT: readonly HeapFootprintItem[] = [
  {
    item: "MessageClientExt",
    bytes: 112,
    derivation: "12 header + Message (topic, properties, body, transactionId refs, flag int: 20) + MessageExt (brokerName, bornHost, storeHost, msgId refs: 16; queueId, storeSize, sysFlag, bodyCRC, reconsumeTimes ints: 20; queueOffset, bornTimestamp, storeTimestamp, commitLogOffset, preparedTransactionOffset longs: 40) = 108 → 112",
  },
  { item: "body byte[] header", bytes: 16, derivation: "the array header; the body bytes themselves are counted separately (cached bytes)" },
  { item: "topic String", bytes: stringBytes(TOPIC_LENGTH), derivation: `24 String + byte[${TOPIC_LENGTH}] ${byteArrayBytes(TOPIC_LENGTH)}` },
  { item: "offset msgId String", bytes: stringBytes(MSG_ID_LENGTH), derivation: `24 String + byte[${MSG_ID_LENGTH}] ${byteArrayBytes(MSG_ID_LENGTH)}` },
  {
    item: "bornHost + storeHost",
    bytes: 2 * (16 + 24 + 24 + 32),
    derivation: "2 × (InetSocketAddress 16 + InetSocketAddressHolder 24 (hostname, addr refs, port int) + Inet4Address 24 (holder, canonicalHostName refs) + InetAddressHolder 32 (two String refs, address and family ints))",
  },
  { item: "properties HashMap", bytes: 48, derivation: "12 header + table, entrySet, keySet, values refs 16 + size, modCount, threshold ints and loadFactor 16 = 44 → 48" },
  { item: "HashMap table", bytes: 16 + 4 * 128, derivation: "Node[128]: new HashMap<>(128) allocates 128 slots at the first put; 16 + 128 × 4" },
  { item: "HashMap.Node × " + PROPERTY_ENTRIES, bytes: PROPERTY_ENTRIES * 32, derivation: `${PROPERTY_ENTRIES} entries × (12 header + hash int + key, value, next refs = 28 → 32)` },
  {
    item: "property key Strings",
    bytes: PARSED_KEYS.reduce((a, k) => a + stringBytes(k.length), 0),
    derivation: PARSED_KEYS.map((k) => `${k} ${stringBytes(k.length)}`).join(" + "),
  },
  {
    item: "property value Strings",
    bytes: [...PARSED_VALUE_LENGTHS, ...OFFSET_VALUE_LENGTHS].reduce((a, n) => a + stringBytes(n), 0),
    derivation: `${[...PARSED_VALUE_LENGTHS, ...OFFSET_VALUE_LENGTHS].map((n) => `${n} chars ${stringBytes(n)}`).join(" + ")}`,
  },
  { item: "msgTreeMap entry", bytes: 40 + 24, derivation: "TreeMap.Entry (key, value, left, right, parent refs + color boolean = 33 → 40) + Long key 24" },
  {
    item: "consume task",
    bytes: 32 + 24 + 24 + 32 + 24 + 24,
    derivation: "ConsumeRequest 32 (msgs, processQueue, messageQueue, outer refs) + ArrayList 24 + Object[1] 24 + FutureTask 32 + Executors.RunnableAdapter 24 + LinkedBlockingQueue.Node 24; one per message with consumeMessageBatchMaxSize 1 (orderly consumers have none: the estimate is that much high for them)",
  },
];

/** Heap bytes per cached message besides its body (the sum of HEAP_FOOTPRINT): 2 360. */
export const HEAP_BYTES_PER_MESSAGE = HEAP_FOOTPRINT.reduce((a, f) => a + f.bytes, 0);

const MIB = 2 ** 20;

/** Estimated heap of `count` cached messages holding `bodyBytes` of bodies, in bytes. */
export function heapEstimateBytes(count: number, bodyBytes: number): number {
  return count * HEAP_BYTES_PER_MESSAGE + bodyBytes;
}

/** The same in MiB, rounded to 3 decimals (summary precision). */
export function heapEstimateMiB(count: number, bodyBytes: number): number {
  return Math.round((heapEstimateBytes(count, bodyBytes) / MIB) * 1000) / 1000;
}
