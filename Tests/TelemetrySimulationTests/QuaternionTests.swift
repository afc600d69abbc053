import Testing
import TelemetryCore

@Suite("Quaternion and vector math")
struct QuaternionTests {
    let halfRoot2 = 0.5.squareRoot()
    var quarterTurnAboutZ: Quaternion { Quaternion(x: 0, y: 0, z: halfRoot2, w: halfRoot2) }
    var quarterTurnAboutX: Quaternion { Quaternion(x: halfRoot2, y: 0, z: 0, w: halfRoot2) }

    @Test("vector dot, cross, norm and arithmetic")
    func vectorArithmetic() {
        let a = Vector3(x: 1, y: 2, z: 3)
        let b = Vector3(x: -2, y: 0.5, z: 4)
        #expect(a.dot(b) == 11)
        #expect(Vector3(x: 3, y: 4, z: 12).norm == 13)
        #expect(a + b == Vector3(x: -1, y: 2.5, z: 7))
        #expect(a - b == Vector3(x: 3, y: 1.5, z: -1))
        #expect(a * 2 == Vector3(x: 2, y: 4, z: 6))
        #expect(a.scaled(by: -1) == -a)
        #expect(Vector3(x: 1, y: 0, z: 0).cross(Vector3(x: 0, y: 1, z: 0)) == Vector3(x: 0, y: 0, z: 1))
    }

    @Test("Hamilton product: i·j = k, j·i = −k, i·i = −1")
    func hamiltonProduct() {
        let i = Quaternion(x: 1, y: 0, z: 0, w: 0)
        let j = Quaternion(x: 0, y: 1, z: 0, w: 0)
        #expect(i * j == Quaternion(x: 0, y: 0, z: 1, w: 0))
        #expect(j * i == Quaternion(x: 0, y: 0, z: -1, w: 0))
        #expect(i * i == Quaternion(x: 0, y: 0, z: 0, w: -1))
        let q = Quaternion(x: 1, y: 2, z: 3, w: 4)
        let r = Quaternion(x: -5, y: 6, z: 7, w: 8)
        // Hand-computed: w = 32+5−12−21, x = 4·−5 + 1·8 + 2·7 − 3·6, y = 4·6 − 1·7 + 2·8 + 3·−5, z = 4·7 + 1·6 − 2·−5 + 3·8.
        #expect(q.multiplied(by: r) == Quaternion(x: -16, y: 18, z: 68, w: 4))
    }

    @Test("90° about Z turns x into y, and the inverse turns it back")
    func quarterTurnAndInverse() {
        let q = Quaternion(axis: Vector3(x: 0, y: 0, z: 2), angle: .pi / 2)
        #expect(isClose(q, quarterTurnAboutZ))
        #expect(isClose(q.rotate(Vector3(x: 1, y: 0, z: 0)), Vector3(x: 0, y: 1, z: 0)))
        #expect(isClose(q.inverse.rotate(Vector3(x: 0, y: 1, z: 0)), Vector3(x: 1, y: 0, z: 0)))
        #expect(isClose(q.inverse, q.conjugate))
        #expect(isClose(q * q.inverse, .identity))
        #expect(isClose(q * q, Quaternion(x: 0, y: 0, z: 1, w: 0)))
        #expect(isClose(q.yaw, .pi / 2))
    }

    @Test("inverse and normalized of a non-unit quaternion")
    func inverseOfNonUnit() {
        let q = Quaternion(x: 0, y: 0, z: 2, w: 2)
        #expect(isClose(q.norm, 8.0.squareRoot()))
        #expect(isClose(q.normalized, quarterTurnAboutZ))
        #expect(isClose(q * q.inverse, .identity))
        #expect(q.inverse == Quaternion(x: 0, y: 0, z: -0.25, w: 0.25))
    }

    @Test("multiplied(byInverseOf:) gives the change from the reference, ref⁻¹ ⊗ self")
    func multipliedByInverseOf() {
        // current = (90° about X) ⊗ (90° about Z) = (0.5, −0.5, 0.5, 0.5), computed by hand.
        let current = Quaternion(x: 0.5, y: -0.5, z: 0.5, w: 0.5)
        #expect(isClose(quarterTurnAboutX * quarterTurnAboutZ, current))
        #expect(isClose(current.multiplied(byInverseOf: quarterTurnAboutX), quarterTurnAboutZ))
        // Not the other order: self ⊗ ref⁻¹ would be a different rotation.
        #expect(!isSameRotation(current * quarterTurnAboutX.inverse, quarterTurnAboutZ, tolerance: 1e-6))
        #expect(isClose(current.multiplied(byInverseOf: current), .identity))
        let halfTurn = quarterTurnAboutZ * quarterTurnAboutZ
        #expect(isClose(halfTurn.multiplied(byInverseOf: quarterTurnAboutZ), quarterTurnAboutZ))
    }

    @Test("Euler convention: yaw about Z, pitch about X, roll about Y")
    func eulerAxes() {
        #expect(isClose(Quaternion(yaw: .pi / 2, pitch: 0, roll: 0), quarterTurnAboutZ))
        #expect(isClose(Quaternion(yaw: 0, pitch: .pi / 2, roll: 0), quarterTurnAboutX))
        #expect(isClose(Quaternion(yaw: 0, pitch: 0, roll: .pi / 2), Quaternion(x: 0, y: halfRoot2, z: 0, w: halfRoot2)))
        // Order Z-X′-Y″: qz(yaw) ⊗ qx(pitch) ⊗ qy(roll).
        let angles = (yaw: 0.3, pitch: -0.4, roll: 1.1)
        let composed =
            Quaternion(axis: Vector3(x: 0, y: 0, z: 1), angle: angles.yaw)
            * Quaternion(axis: Vector3(x: 1, y: 0, z: 0), angle: angles.pitch)
            * Quaternion(axis: Vector3(x: 0, y: 1, z: 0), angle: angles.roll)
        #expect(isClose(Quaternion(yaw: angles.yaw, pitch: angles.pitch, roll: angles.roll), composed, tolerance: 1e-12))
    }

    @Test("gravity seen by the device: flat is (0,0,−1); raising the top edge makes y negative")
    func gravityConvention() {
        let down = Vector3(x: 0, y: 0, z: -1)
        #expect(isClose(Quaternion.identity.conjugate.rotate(down), down))
        let raised = Quaternion(yaw: 0, pitch: .pi / 6, roll: 0)
        #expect(isClose(raised.conjugate.rotate(down), Vector3(x: 0, y: -0.5, z: -(0.75.squareRoot())), tolerance: 1e-12))
        let upright = Quaternion(yaw: 1.0, pitch: .pi / 2, roll: 0)
        #expect(isClose(upright.conjugate.rotate(down), Vector3(x: 0, y: -1, z: 0), tolerance: 1e-12))
    }

    @Test(
        "Euler angles round-trip, including yaw near ±180° and roll near ±180°",
        arguments: [
            (0.0, 0.0, 0.0), (0.5, 0.2, -0.3), (3.1399, 0.1, 0.2), (-3.1399, -0.1, 0.2), (.pi, 0.3, -0.4),
            (-2.0, 1.5, 3.1), (2.9, -1.4, -3.13), (1.0, -0.7, .pi - 1e-4),
        ] as [(Double, Double, Double)]
    )
    func eulerRoundTrip(yaw: Double, pitch: Double, roll: Double) {
        let q = Quaternion(yaw: yaw, pitch: pitch, roll: roll)
        #expect(isClose(q.norm, 1, tolerance: 1e-12))
        let angles = q.eulerAngles
        #expect(isClose(wrappedAngle(angles.yaw - yaw), 0, tolerance: 1e-9))
        #expect(isClose(angles.pitch, pitch, tolerance: 1e-9))
        #expect(isClose(wrappedAngle(angles.roll - roll), 0, tolerance: 1e-9))
        #expect(angles.yaw > -.pi - 1e-12 && angles.yaw <= .pi + 1e-12)
        #expect(isSameRotation(Quaternion(angles), q, tolerance: 1e-9))
    }

    @Test("Euler angles at gimbal lock still describe the same rotation")
    func gimbalLock() {
        for pitch in [Double.pi / 2, -Double.pi / 2] {
            let q = Quaternion(yaw: 0.7, pitch: pitch, roll: 0.2)
            let angles = q.eulerAngles
            #expect(isClose(angles.pitch, pitch))
            #expect(angles.roll == 0)
            #expect(isSameRotation(Quaternion(angles), q, tolerance: 1e-6))
        }
    }

    @Test("an attitude away from 180° yaw: 179.9° and −179.9° are 0.2° apart")
    func yawAcrossTheSeam() {
        let east = Quaternion(yaw: 179.9 * .pi / 180, pitch: 0, roll: 0)
        let west = Quaternion(yaw: -179.9 * .pi / 180, pitch: 0, roll: 0)
        let change = west.multiplied(byInverseOf: east)
        #expect(isClose(change.yaw * 180 / .pi, 0.2, tolerance: 1e-9))
    }
}
