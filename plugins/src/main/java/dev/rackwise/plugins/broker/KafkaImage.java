package dev.rackwise.plugins.broker;

import java.lang.reflect.Field;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.image.ClusterImage;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.TopicImage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The KRaft metadata image behind Kafka's own describer, which is all its answers are made of:
 * {@code racksForPartition(t, p)} is the racks, in the image's {@link ClusterImage}, of the
 * replicas that the topic's {@link TopicImage} lists (4.1.2, 4.2.2, 4.3.1 and 4.4.0 bytecode).
 * Both are immutable, and a metadata change that touches a topic's replicas or a broker's rack
 * makes a new object of it; the rest of the image keeps its objects. So the pair (topic image,
 * cluster image), by identity, is a key that a replica move always changes, and that the
 * controller's periodic no-op records (a new image every {@code metadata.max.idle.interval.ms})
 * do not.
 *
 * <p>The image is a private field of the describer (and, from 4.2, of the
 * {@code KRaftCoordinatorMetadataImage} it wraps): read by reflection, once resolved per class.
 * Where that fails (another Kafka's layout), {@link #of} returns null and racks are read from
 * the describer on every call, as before; said once in the log.
 */
final class KafkaImage {
    private static final Logger log = LoggerFactory.getLogger(KafkaImage.class);
    /** The class whose describers are Kafka's own, over an immutable metadata image. */
    static final String KAFKA_DESCRIBER = "org.apache.kafka.coordinator.group.modern.SubscribedTopicDescriberImpl";

    /** How to reach the image from one describer class: resolved on first use. */
    private record Path(Class<?> describerClass, Field image, Field wrapped) {
    }

    private static volatile Path path;
    private static volatile boolean unavailable;

    private final MetadataImage image;

    private KafkaImage(MetadataImage image) {
        this.image = image;
    }

    /** The image behind {@code describer}, or null when it is not Kafka's or cannot be read. */
    static KafkaImage of(SubscribedTopicDescriber describer) {
        if (unavailable || describer == null || !describer.getClass().getName().equals(KAFKA_DESCRIBER)) {
            return null;
        }
        try {
            Path p = path;
            if (p == null || p.describerClass != describer.getClass()) {
                p = resolve(describer);
                path = p;
            }
            Object held = p.image.get(describer);
            Object image = p.wrapped == null ? held : p.wrapped.get(held);
            return image instanceof MetadataImage m ? new KafkaImage(m) : null;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            unavailable = true;
            log.info("rackwise: replica racks are read from the describer on every assign() call: its metadata "
                + "image cannot be reached here ({})", e.toString());
            return null;
        }
    }

    private static Path resolve(SubscribedTopicDescriber describer) throws ReflectiveOperationException {
        Field image = describer.getClass().getDeclaredField("metadataImage");
        image.setAccessible(true);
        if (MetadataImage.class.isAssignableFrom(image.getType())) {
            return new Path(describer.getClass(), image, null); // 4.1: the image itself
        }
        Object held = image.get(describer); // 4.2+: a CoordinatorMetadataImage around it
        for (Field f : held.getClass().getDeclaredFields()) {
            if (MetadataImage.class.isAssignableFrom(f.getType())) {
                f.setAccessible(true);
                return new Path(describer.getClass(), image, f);
            }
        }
        throw new NoSuchFieldException(held.getClass().getName() + " holds no MetadataImage");
    }

    /** The topic's image (null: not in the metadata). */
    TopicImage topic(Uuid id) {
        return image.topics().getTopic(id);
    }

    ClusterImage cluster() {
        return image.cluster();
    }

    /** How many topics the metadata holds. */
    int topics() {
        return image.topics().topicsById().size();
    }
}
