package dev.rackwise.plugins.request;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;

/**
 * Bytes of RackwiseAssignRequest v0, big-endian, Kafka's classic primitive encodings:
 *
 * <pre>
 * version        int16   = 0
 * protocol       STRING  (int16 length + UTF-8)
 * topics         ARRAY   (int32 count) of { name STRING, partitions int32 }
 * members        ARRAY   of { member_id STRING, instance_id NULLABLE_STRING (-1 = null),
 *                             subscription BYTES (int32 length): ConsumerProtocolSubscription v3 }
 * </pre>
 *
 * protocol/request.py is the Python side of the same layout.
 */
public final class RequestCodec {
    /** The ConsumerProtocolSubscription version every member is written at (KIP-881: rack id). */
    public static final short SUBSCRIPTION_VERSION = 3;

    private RequestCodec() {
    }

    public static byte[] encode(AssignRequest request) {
        List<byte[]> subscriptions = new ArrayList<>(request.members().size());
        int size = 2 + sizeOf(request.protocol().wireName()) + 4 + 4;
        for (RequestTopic t : request.topics()) {
            size += sizeOf(t.name()) + 4;
        }
        for (RequestMember m : request.members()) {
            ByteBuffer sub = ConsumerProtocol.serializeSubscription(m.subscription(), SUBSCRIPTION_VERSION);
            byte[] bytes = new byte[sub.remaining()];
            sub.get(bytes);
            subscriptions.add(bytes);
            size += sizeOf(m.memberId()) + sizeOf(m.instanceId()) + 4 + bytes.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putShort(AssignRequest.VERSION);
        putString(out, request.protocol().wireName());
        out.putInt(request.topics().size());
        for (RequestTopic t : request.topics()) {
            putString(out, t.name());
            out.putInt(t.partitions());
        }
        out.putInt(request.members().size());
        for (int i = 0; i < request.members().size(); i++) {
            RequestMember m = request.members().get(i);
            putString(out, m.memberId());
            putString(out, m.instanceId());
            out.putInt(subscriptions.get(i).length);
            out.put(subscriptions.get(i));
        }
        return out.array();
    }

    /** The request in {@code data}; IllegalArgumentException for anything malformed. */
    public static AssignRequest decode(ByteBuffer data) {
        ByteBuffer in = data.duplicate();
        try {
            short version = in.getShort();
            if (version != AssignRequest.VERSION) {
                throw new IllegalArgumentException("unknown RackwiseAssignRequest version " + version);
            }
            RequestProtocol protocol = RequestProtocol.fromWireName(getString(in, false));
            int topicCount = count(in, "topics");
            List<RequestTopic> topics = new ArrayList<>(topicCount);
            for (int i = 0; i < topicCount; i++) {
                topics.add(new RequestTopic(getString(in, false), in.getInt()));
            }
            int memberCount = count(in, "members");
            List<RequestMember> members = new ArrayList<>(memberCount);
            for (int i = 0; i < memberCount; i++) {
                String memberId = getString(in, false);
                String instanceId = getString(in, true);
                int n = in.getInt();
                if (n < 0 || n > in.remaining()) {
                    throw new IllegalArgumentException("member " + memberId + ": bad subscription length " + n);
                }
                ByteBuffer bytes = in.slice();
                bytes.limit(n);
                in.position(in.position() + n);
                Subscription sub = ConsumerProtocol.deserializeSubscription(bytes);
                members.add(new RequestMember(memberId, instanceId, sub));
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException(in.remaining() + " trailing bytes after the request");
            }
            return new AssignRequest(protocol, topics, members);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated RackwiseAssignRequest", e);
        }
    }

    private static int sizeOf(String s) {
        return 2 + (s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length);
    }

    private static void putString(ByteBuffer out, String s) {
        if (s == null) {
            out.putShort((short) -1);
            return;
        }
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("string of " + bytes.length + " bytes is too long for a Kafka STRING");
        }
        out.putShort((short) bytes.length);
        out.put(bytes);
    }

    private static String getString(ByteBuffer in, boolean nullable) {
        short n = in.getShort();
        if (n < 0) {
            if (n == -1 && nullable) {
                return null;
            }
            throw new IllegalArgumentException("invalid string length " + n);
        }
        if (n > in.remaining()) {
            throw new BufferUnderflowException();
        }
        ByteBuffer bytes = in.slice();
        bytes.limit(n);
        in.position(in.position() + n);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(bytes).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("invalid UTF-8 in a string", e);
        }
    }

    private static int count(ByteBuffer in, String what) {
        int n = in.getInt();
        if (n < 0) {
            throw new IllegalArgumentException(what + ": negative count " + n);
        }
        return n;
    }
}
