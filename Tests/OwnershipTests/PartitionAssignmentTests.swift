import Ownership
import Testing

/// Devices to partitions and partitions to instances: fixed values computed independently (a
/// Python FNV-1a/fmix64 of the same keys), the spread, and how little moves on a join or leave.
@Suite("Ownership partitions and their assignment")
struct PartitionAssignmentTests {
    @Test("a device's partition is fmix64(fnv1a64(id)) % 1024, the same in every process (values computed in Python)")
    func devicePartitions() {
        let partitions = OwnershipPartitions()
        #expect(partitions.count == 1_024)
        #expect(partitions.partition(of: "watch-1") == 260)
        #expect(partitions.partition(of: "diver-07") == 383)
        #expect(partitions.partition(of: "headphones-a") == 640)
        #expect(partitions.partition(of: "x") == 5)
    }

    @Test("rendezvous over partitions: fixed holders (computed in Python) and a near-even spread over three instances")
    func assignment() {
        let assignment = PartitionAssignment(partitions: OwnershipPartitions(), instances: ["gw-3", "gw-1", "gw-2", "gw-1"])
        #expect(assignment.instances == ["gw-1", "gw-2", "gw-3"])
        #expect(assignment.instance(for: 0) == "gw-1")
        #expect(assignment.instance(for: 1) == "gw-2")
        #expect(assignment.instance(for: 2) == "gw-3")
        #expect(assignment.instance(for: 511) == "gw-2")
        #expect(assignment.instance(for: 1_023) == "gw-3")
        #expect(assignment.partitions(of: "gw-1").count == 329)
        #expect(assignment.partitions(of: "gw-2").count == 361)
        #expect(assignment.partitions(of: "gw-3").count == 334)
        #expect(assignment.partitions(of: "gw-9").isEmpty)
    }

    @Test("a join takes only partitions for the newcomer, a leave moves only the leaver's, no instances assigns nothing")
    func minimalMovement() {
        let partitions = OwnershipPartitions()
        let three = PartitionAssignment(partitions: partitions, instances: ["gw-1", "gw-2", "gw-3"])
        let four = PartitionAssignment(partitions: partitions, instances: ["gw-1", "gw-2", "gw-3", "gw-4"])
        var moved = 0
        for partition in partitions.all where three.instance(for: partition) != four.instance(for: partition) {
            #expect(four.instance(for: partition) == "gw-4")
            moved += 1
        }
        #expect(moved == four.partitions(of: "gw-4").count)
        #expect((200...320).contains(moved), "a fourth instance took \(moved) of 1,024")
        let two = PartitionAssignment(partitions: partitions, instances: ["gw-1", "gw-3"])
        for partition in partitions.all where three.instance(for: partition) != "gw-2" {
            #expect(two.instance(for: partition) == three.instance(for: partition))
        }
        let none = PartitionAssignment(partitions: partitions, instances: [String]())
        #expect(none.instance(for: 0) == nil)
        #expect(none.partitions(of: "gw-1").isEmpty)
    }
}
